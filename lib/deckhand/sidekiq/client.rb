# frozen_string_literal: true

module Sidekiq
  # Sidekiq::Client in drop-in mode: Deckhand's client, with Sidekiq's
  # constructor and class methods.
  #
  #   Sidekiq::Client.push("class" => "HardJob", "args" => [1], "queue" => "low")
  #   Sidekiq::Client.push_bulk("class" => HardJob, "args" => [[1], [2]])
  #   Sidekiq::Client.new.push("class" => HardJob, "args" => [3], "at" => Time.now.to_f + 60)
  class Client < Deckhand::Client
    def self.push(item) = new.push(item)

    def self.push_bulk(item) = new.push_bulk(item)

    def self.enqueue(klass, *args) = klass.perform_async(*args)

    def self.enqueue_to(queue, klass, *args) = klass.set(queue: queue.to_s).perform_async(*args)

    def self.enqueue_in(interval, klass, *args) = klass.perform_in(interval, *args)

    def self.enqueue_to_in(queue, interval, klass, *args) = klass.set(queue: queue.to_s).perform_in(interval, *args)

    # Sidekiq::Client.via(pool) { ... } is Deckhand::Client.via: `pool` made
    # by Sidekiq::RedisConnection.create (a pool over a Deckhand::Store), a
    # ConnectionPool of redis-client connections (Sidekiq's sharding guide's),
    # or a URL.
    def self.via(pool, &)
      raise ArgumentError, "No pool given: Sidekiq::Client.via needs the Redis to push to, a ConnectionPool or a URL" if pool.nil?
      super
    end

    # Sidekiq::Client.new(pool: pool) pushes there too (Sidekiq 6's
    # Client.new(pool) as well).
    def initialize(*args, pool: nil, config: nil, **)
      pool ||= args.first
      super(config: config.respond_to?(:config) ? config.config : Deckhand.config, pool: pool)
    end

    # The pool this client pushes through: the one given, the via block's,
    # or the configuration's (Sidekiq::Config#redis_pool, to the same Redis
    # as the configuration's store).
    def redis_pool = Deckhand::DropIn::ClientMiddlewareCall.pool_for(@config)

    # Sidekiq's items name the class as a Class or a String; a Class's own
    # options (sidekiq_options) fill in what the item leaves out, as in Sidekiq
    # (but its pool: only routes the class's own pushes: Payload.normalize).
    # A bad item raises ArgumentError, as in Sidekiq (Deckhand's message).
    def push(item)
      Deckhand::DropIn.push_errors do
        item = check(item)
        item["args"] = Deckhand::DropIn::StrictArgs.apply(item["args"], item["class"])
        super(item)
      end
    end

    # "args" may be any Enumerable (a lazy one too), as in Sidekiq.
    def push_bulk(item)
      Deckhand::DropIn.push_errors do
        item = check(item)
        item["args"] = item["args"].to_a if item["args"].is_a?(Enumerator)
        item["args"] = item["args"].map { |args| Deckhand::DropIn::StrictArgs.apply(args, item["class"]) } if item["args"].is_a?(Array)
        super(item)
      end
    end

    # The client middleware this client runs: the configuration's, or with a
    # block a copy of it changed for this client alone, as in Sidekiq.
    #
    #   client = Sidekiq::Client.new
    #   client.middleware { |chain| chain.add AuditMiddleware }
    def middleware
      if block_given?
        @chain = client_chain.dup
        yield Deckhand::DropIn::MiddlewareChain.new(@chain)
      end
      Deckhand::DropIn::MiddlewareChain.new(client_chain)
    end

    private

    def client_chain = @chain || super

    # Sidekiq files every job given an "at" in the schedule, even one due
    # already (the scheduler enqueues it within seconds): so does drop-in mode.
    def scheduled_at(at)
      return nil if at.nil?
      raise ArgumentError, "Job 'at' must be a Numeric timestamp: #{at.inspect}" unless at.is_a?(Numeric)
      at.to_f
    end

    def check(item)
      raise ArgumentError, "Job must be a Hash with 'class' and 'args' keys: #{item.inspect}" unless item.is_a?(Hash)
      item = item.transform_keys(&:to_s)
      raise ArgumentError, "Job must be a Hash with 'class' and 'args' keys: #{item.inspect}" unless item.key?("class") && item.key?("args")
      raise ArgumentError, "Job tags must be an Array: #{item.inspect}" if item.key?("tags") && !item["tags"].is_a?(Array)
      item.delete(Deckhand::DropIn::ClientClass::KEY) # how to push, not part of the job
      item
    end
  end
end
