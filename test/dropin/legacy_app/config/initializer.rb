# frozen_string_literal: true

Sidekiq.configure_server do |config|
  config.super_fetch!
  config.on(:heartbeat) { Stats.beat }
  config.on(:leader) { Stats.lead }
end

Sidekiq::Launcher::PROCTITLES << proc { "legacy" }
