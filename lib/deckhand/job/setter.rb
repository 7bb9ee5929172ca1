# frozen_string_literal: true

require "json"
require_relative "../redis_stand_in"

module Deckhand
  module Job
    # Per-push options on top of the class's: `MyJob.set(queue: "critical").perform_async(1)`.
    class Setter
      # A perform_async without set: no options of its own, and no Hash made for them.
      NO_OPTIONS = {}.freeze

      def initialize(klass, options = NO_OPTIONS)
        @klass = klass
        Setter.hash!(options)
        @options = if options.equal?(NO_OPTIONS) || options.empty?
          NO_OPTIONS
        else
          Options.check_set!(options.transform_keys(&:to_s), klass)
          Options.merge({}, options, klass)
        end
      end

      # Adds options over these.
      def set(options) = self.class.new(@klass, @options.merge(Setter.hash!(options).transform_keys(&:to_s)))

      # The options given to set, which must be a Hash.
      def self.hash!(options) # :nodoc:
        return options if options.is_a?(Hash)
        raise ArgumentError, "set takes a Hash of options, like set(queue: \"critical\"); got #{options.inspect[0, 80]}"
      end

      # Pushes a job with these options to run now.
      #
      # @return [String, nil] the jid
      def perform_async(*args) = push(:push, item(args))

      # Runs after `interval` seconds (a Numeric, or an ActiveSupport::Duration).
      #
      #   WelcomeJob.perform_in(300, user.id)
      #   WelcomeJob.perform_in(5.minutes, user.id)
      #   WelcomeJob.perform_in("5 minutes", user.id)   # raises ArgumentError: give 300 or 5.minutes
      def perform_in(interval, *args)
        check_time!(interval, "perform_in", "a number of seconds")
        at = interval.to_f
        # A delay, not a time: from the application's now (Time.now, which a
        # test may freeze), as Sidekiq counts it.
        at += Time.now.to_f if at < 1_000_000_000
        push(:push, item(args).merge("at" => at))
      end

      # Runs at `time` (a Time, or epoch seconds).
      def perform_at(time, *args)
        check_time!(time, "perform_at", "a Time or epoch seconds")
        push(:push, item(args).merge("at" => time.to_f))
      end

      # Pushes a job per entry of `args_list` (each an Array of arguments), `batch_size` per round trip;
      # `at` (one time or one per job) or `spread_interval` (seconds) schedule them.
      #
      #   HardJob.set(queue: "bulk").perform_bulk([[1], [2], [3]])   # => their jids
      def perform_bulk(args_list, batch_size: Client::BULK_BATCH, at: nil, spread_interval: nil)
        options = {"batch_size" => batch_size, "at" => at, "spread_interval" => spread_interval}.compact
        push(:push_bulk, item(args_list).merge(options))
      end

      # A unique job holds its lock while it runs here: while another job
      # holds it, it does not run (nil, or Deckhand::NotUnique with on_conflict: :raise).
      # A debounced or deduplicated one runs at once, its key resolved.
      def perform_inline(*args)
        job = Collapsing.resolve!(Payload.normalize(item(args).except("pool", "partition_by")))
        lock = Unique.lock_for(job, layout: Deckhand.config.layout) unless RedisStandIn.active?
        return run_inline(job) unless lock
        store = Deckhand.config.store
        if (holder = Store::Features::UniqueLocks.take(store, lock))
          message = "#{@klass} not run inline: job #{holder} holds its unique lock #{lock.key}"
          raise NotUnique.new(message, holder: holder, key: lock.key) if job["on_conflict"] == "raise"
          Deckhand.config.logger.info(message)
          return nil
        end
        begin
          run_inline(job)
        ensure
          Store::Features::UniqueLocks.release(store, lock.key, lock.jid)
        end
      end

      # As perform_bulk, through `client` whatever Redis the class would
      # choose: a workflow builds its steps with its own configuration.
      def perform_bulk_through(client, args_list) = client.push_bulk(item(args_list).except("pool")) # :nodoc:

      private

      # A String answers to_f with its leading number ("5 minutes" is 5.0,
      # "2026-12-01" is 2026.0), so taking it would schedule the job quietly
      # at the wrong time: refused at the call, with the fix.
      def check_time!(value, method, wanted)
        if value.is_a?(String)
          time = (method == "perform_at") ? ", or a Time (Time.parse(string))" : nil
          raise ArgumentError, "#{@klass}.#{method} got the String #{value[0, 40].inspect}, which would be read as " \
            "#{value.to_f} seconds: give #{wanted} as a Numeric (300) or an ActiveSupport::Duration (5.minutes)#{time}"
        end
        raise ArgumentError, "#{@klass}.#{method} needs #{wanted}, got #{value.inspect}" unless value.respond_to?(:to_f)
      end

      def run_inline(job)
        job = Payload.decode(JSON.generate(job))
        instance = @klass.new
        instance.jid = job["jid"]
        instance.deckhand_payload = job
        return Chunk.perform_one(instance, job["args"], job) if Chunk.of(@klass) # as a server runs it: a chunk of one
        instance.perform(*job["args"])
      end

      # One new Hash per push: the class's options may be shared (the
      # defaults), so they are copied, never changed.
      def item(args)
        item = @options.empty? ? @klass.deckhand_options.dup : @klass.deckhand_options.merge(@options)
        item["class"] = @klass.name
        item["args"] = args
        item
      end

      # To Redis, to the one Sidekiq would choose: set(pool:), else the
      # innermost Client.via block's, else deckhand_options pool:, else the
      # configuration's. "pool" is not stored in the job.
      def push(method, item)
        declared = item.delete("pool")
        pool = @options["pool"] || Client.via_target || declared
        (pool ? client_class.new(pool: pool) : client_class.new).public_send(method, item) # keywords through new cost a Hash
      end

      # The client a class's pushes go through (drop-in mode's: Sidekiq::Client).
      def client_class = Client
    end
  end
end
