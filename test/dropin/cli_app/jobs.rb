# frozen_string_literal: true

# The application `Sidekiq::CLI` boots in test/dropin/sidekiq_cli_test.rb.
class CliRunJob
  include Sidekiq::Job

  def perform(value) = Sidekiq.redis { |conn| conn.rpush("cli:done", "#{value}:#{Sidekiq.server?}") }
end
