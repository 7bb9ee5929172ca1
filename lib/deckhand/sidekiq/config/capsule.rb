# frozen_string_literal: true

module Sidekiq
  # Sidekiq 7's capsule in drop-in mode: a thread pool with its own queues,
  # which becomes a Deckhand capsule ("default" is the configuration's own
  # concurrency and queues).
  #
  #   Sidekiq.configure_server do |config|
  #     config.capsule("single") do |cap|
  #       cap.concurrency = 1
  #       cap.queues = %w[single_threaded]
  #     end
  #   end
  class Capsule
    attr_reader :name, :config

    def initialize(name, config)
      @name = name.to_s
      @config = config
      @concurrency = default? ? config.config.concurrency : config[:concurrency]
      @applied = nil
      @chains = {}
      default? ? sync : (self.queues = ["default"])
    end

    # The default capsule reads the configuration's own settings, which
    # Deckhand's config file or code may have set too.
    def concurrency = default? ? config.config.concurrency : @concurrency

    def queues
      sync
      @queues
    end

    def weights
      sync
      @weights
    end

    def mode
      sync
      @mode
    end

    def concurrency=(count)
      @concurrency = Integer(count)
      default? ? (config.config.concurrency = @concurrency) : register
    end

    # Sidekiq's queue list: "name" or "name,weight" Strings, or
    # [name, weight] pairs (a YAML file's); a queue of weight 3 is listed
    # three times, as in Sidekiq.
    def queues=(list)
      parse(list)
      if default?
        config.config.queues = deckhand_queues
        @applied = config.config.queues
      else
        register
      end
    end

    # A capsule's own server middleware, as in Sidekiq 7: given a block, a
    # capsule other than "default" gets a copy of the configuration's chain
    # as it stands, which the block changes and which its jobs run in place
    # of the configuration's. Until then (and always for "default") it is
    # the configuration's chain.
    def server_middleware(&block)
      chain = own_chain(:server_middleware, &block)
      register if block && !default?
      chain
    end

    # Sidekiq 7.3 keeps a client chain per capsule too, but its pushes run
    # the configuration's (Sidekiq::Client takes config.client_middleware):
    # so here, a copy the block changes, which pushes do not run either.
    def client_middleware(&) = own_chain(:client_middleware, &)

    def redis(&) = config.redis(&)

    # Sidekiq's pool for a capsule: one connection per thread, to the
    # configuration's Redis (made on first use; inside Client.via, that
    # block's pool).
    def redis_pool
      via = Deckhand::Client.via_target
      return Deckhand::DropIn::RedisPool.for(via.store) if via
      @redis_pool ||= config.own_pool("capsule #{@name}", concurrency)
    end

    def logger = config.logger

    # The configuration's (Sidekiq 8 keeps one for every capsule).
    def thread_priority = config.thread_priority

    # Sidekiq's fetcher for this capsule (Sidekiq::BasicFetch), what a
    # Sidekiq::Processor asks for work.
    def fetcher
      require_relative "../internals/basic_fetch"
      @fetcher ||= Sidekiq::BasicFetch.new(self)
    end

    private

    def default? = @name == "default"

    # The chain `kind` (:server_middleware or :client_middleware) of this
    # capsule: the configuration's for "default" and until a block is
    # given; from the first block on, a copy of the configuration's as it
    # stood then, which each block changes.
    def own_chain(kind, &block)
      return config.public_send(kind, &block) if default?
      if block
        @chains[kind] ||= config.config.public_send(kind).dup
        yield Deckhand::DropIn::MiddlewareChain.new(@chains[kind])
      end
      @chains[kind] ? Deckhand::DropIn::MiddlewareChain.new(@chains[kind]) : config.public_send(kind)
    end

    # Reads the configuration's queues when something else set them; writes nothing.
    def sync
      return unless default? && !config.config.queues.equal?(@applied)
      parse(config.config.queues)
      @applied = config.config.queues
    end

    def parse(list)
      pairs = Array(list).map do |entry|
        name, weight = entry.is_a?(String) ? entry.split(",", 2) : Array(entry)
        [name.to_s.strip, weight.to_i]
      end
      @weights = pairs.to_h
      @queues = pairs.flat_map { |name, weight| [name] * [weight, 1].max }
      @mode = if @weights.values.all?(&:zero?) then :strict
      elsif @weights.values.all? { |weight| weight == 1 } then :random
      else :weighted
      end
    end

    # Sidekiq's weight 0 (listed once, strict order) is a queue without a weight in Deckhand.
    def deckhand_queues = @weights.map { |name, weight| weight.zero? ? name : "#{name},#{weight}" }

    def register = config.config.capsule(@name, concurrency: @concurrency, queues: deckhand_queues, server_middleware: @chains[:server_middleware])
  end
end
