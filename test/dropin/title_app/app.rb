# frozen_string_literal: true

# The application a `deckhand` server boots in test/dropin/server_title_test.rb
# (drop-in mode): a plugin's addition to Sidekiq's process title, Sidekiq's
# lifecycle and heartbeat events, and a job that holds its thread until told.
require "sidekiq"
require "sidekiq/launcher"

Sidekiq::Launcher::PROCTITLES << proc { |_launcher, data| "rev-#{data["labels"].first}" }

Sidekiq.configure_server do |config|
  config[:tag] = "shop"
  config[:labels] = ["42"]
  %i[startup heartbeat beat quiet].each do |event|
    config.on(event) { Sidekiq.redis { |conn| conn.rpush("title:events", event.to_s) } }
  end
end

class TitleHoldJob
  include Sidekiq::Job

  def perform = Sidekiq.redis { |conn| conn.blocking_call(30, "BLPOP", "title:release", 30) }
end
