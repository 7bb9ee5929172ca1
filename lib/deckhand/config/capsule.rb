# frozen_string_literal: true

module Deckhand
  class Config
    # A thread pool with its own queues: CPU-bound queues get few threads and
    # I/O-bound queues many, in one process.
    #
    #   Deckhand.configure do |c|
    #     c.capsule("reports", concurrency: 1, queues: ["reports"])
    #     c.capsule("mail", concurrency: 25, queues: ["mailers,3", "webhooks,1"])
    #     c.capsule("imports", concurrency: 4, queues: ["imports"]) do |cap|
    #       cap.server_middleware.add ImportTenant   # this capsule's jobs only
    #     end
    #     c.capsule("io", concurrency: 1000, queues: ["webhooks"], fibers: true)
    #   end
    #
    # With `fibers: true` its jobs run as pooled fibers under a fiber
    # scheduler (the async gem) on one thread, for I/O-bound jobs by the
    # hundred (docs/concurrency.md).
    #
    # Queues listed without weights are drained in strict order (the first queue
    # until it is empty, then the next). With weights ("name,3"), a queue of
    # weight 3 gives three times as many jobs as one of weight 1 while both have
    # jobs: each fetch splits its batch by weight (Server::Fetch::Sources), and
    # a fetch of one job picks its queue at random by weight, as Sidekiq does.
    class Capsule
      # What a capsule's name may hold.
      NAME = /\A[\w.-]+\z/
      # Fibers of one capsule that may hold a pooled Redis connection at once
      # (Config#store's pool size): a thousand fibers share these.
      FIBER_REDIS_USERS = 20

      # The capsule's own server middleware (a Middleware::Chain), which its
      # jobs run in place of the configuration's; nil when it has none.
      attr_reader :name, :concurrency, :queues, :weights, :server_middleware

      def initialize(name, concurrency:, queues:, server_middleware: nil, fibers: false)
        @name = name.to_s
        raise ConfigError, "capsule name #{name.inspect} must be letters, digits, '_', '-' or '.'" unless NAME.match?(@name)
        unless concurrency.is_a?(Integer) && concurrency.between?(1, 1000)
          raise ConfigError, "capsule #{@name}: concurrency must be an Integer from 1 to 1000, got #{concurrency.inspect}"
        end
        @concurrency = concurrency
        unless server_middleware.nil? || server_middleware.is_a?(Middleware::Chain)
          raise ConfigError, "capsule #{@name}: server_middleware must be a Deckhand::Middleware::Chain (give a block to change a copy of the configuration's), got #{server_middleware.class}"
        end
        @server_middleware = server_middleware
        raise ConfigError, "capsule #{@name}: fibers must be true or false, got #{fibers.inspect}" unless [true, false].include?(fibers)
        @fibers = fibers
        parse_queues(queues)
        freeze
      end

      # Whether the queues are taken in strict order (no weights given).
      def strict? = @weights.nil?

      # True when its jobs run as fibers (Server::FiberPool), not threads.
      def fibers? = @fibers

      # How many of its workers may hold a pooled Redis connection at once.
      def redis_users = @fibers ? [@concurrency, FIBER_REDIS_USERS].min : @concurrency

      # The queue names in the order this fetch should try them: weighted
      # queues in a random order, a queue of weight 3 three times as likely
      # to go first as one of weight 1.
      def fetch_order
        return @queues if strict?
        @weighted.shuffle.uniq
      end

      private

      def parse_queues(list)
        list = Array(list)
        raise ConfigError, "capsule #{@name}: give it at least one queue" if list.empty?
        weighted = false
        pairs = list.map do |entry|
          name, weight = entry.is_a?(Array) ? entry.map(&:to_s) : entry.to_s.split(",", 2)
          name = name.to_s.strip
          raise ConfigError, "capsule #{@name}: queue names cannot be empty (got #{entry.inspect})" if name.empty?
          weighted ||= !weight.nil?
          [name.freeze, parse_weight(weight, entry)]
        end
        @queues = pairs.map(&:first).uniq.freeze
        @weights = weighted ? pairs.to_h.freeze : nil
        @weighted = pairs.flat_map { |name, weight| [name] * weight }.freeze
      end

      def parse_weight(weight, entry)
        return 1 if weight.nil?
        Integer(weight, 10).tap { |w| raise ArgumentError if w < 1 }
      rescue ArgumentError
        raise ConfigError, "capsule #{@name}: queue weight in #{entry.inspect} must be a whole number of 1 or more"
      end
    end
  end
end
