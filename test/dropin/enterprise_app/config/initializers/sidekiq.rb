# frozen_string_literal: true

Sidekiq::Enterprise::Crypto.enable(active_version: 1) do |version|
  File.binread("/etc/keys/secret.#{version}.key")
end

Sidekiq.configure_server do |config|
  config.periodic do |mgr|
    mgr.register("0 * * * *", "HourlyJob", retry: 2, queue: "reports")
  end
end
