# frozen_string_literal: true

require "securerandom"
require "socket"

module Sidekiq
  # Sidekiq's mixin for a plugin's long-lived parts in drop-in mode: given a
  # `config` (a Sidekiq::Config), it adds the logger, Redis, error handling
  # and lifecycle events of that configuration, and a named thread that
  # reports its crash. Deckhand's own parts use Deckhand::Server::Component.
  #
  #   class Sweeper
  #     include Sidekiq::Component
  #     def initialize(config) = @config = config
  #     def start = safe_thread("sweeper") { loop { sweep; sleep 60 } }
  #   end
  module Component
    attr_reader :config

    def logger = config.logger

    def redis(&) = config.redis(&)

    def tid = Deckhand::Logging::Formatters.tid

    def hostname = ENV["DYNO"] || Socket.gethostname

    def process_nonce = Component.process_nonce

    def self.process_nonce = (@process_nonce ||= SecureRandom.hex(6))

    def identity = "#{hostname}:#{::Process.pid}:#{process_nonce}"

    def handle_exception(error, context = {}) = config.handle_exception(error, context)

    # A thread named `name` whose crash goes to the error handlers, which log
    # it (Ruby does not report it a second time), then ends it.
    def safe_thread(name, &block)
      Thread.new do
        Thread.current.name = "sidekiq.#{name}"
        Thread.current.report_on_exception = false
        watchdog(name, &block)
      end
    end

    def watchdog(last_words)
      yield
    rescue Exception => e # standard:disable Lint/RescueException
      handle_exception(e, {context: last_words})
      raise
    end

    # Runs the blocks added with config.on(event); with oneshot (the default)
    # they are removed after running, as Sidekiq does.
    def fire_event(event, options = {})
      blocks = config[:lifecycle_events].fetch(event)
      list = options[:reverse] ? blocks.reverse : blocks.dup
      list.each do |block|
        block.call
      rescue => e
        handle_exception(e, {context: "Exception during Sidekiq lifecycle event.", event: event})
        raise if options[:reraise]
      end
      blocks.clear if options.fetch(:oneshot, true) && !blocks.frozen?
    end
  end
end
