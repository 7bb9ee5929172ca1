# frozen_string_literal: true

require "json"

module Deckhand
  module DropIn
    # What `set` returns on a Sidekiq::Job class in drop-in mode: any option
    # is stored in the job as given (as in Sidekiq, a middleware's own keys
    # need no declaration), and Active Job's wait: and wait_until: schedule it.
    #
    #   HardJob.set(queue: "low", wait: 300).perform_async(1)
    #   HardJob.set(wait_until: Time.now + 3600, tenant: "acme").perform_async(2)
    class JobSetter < Deckhand::Job::Setter
      def initialize(klass, options = {})
        options = options.transform_keys(&:to_s)
        interval = options.delete("wait_until") || options.delete("wait")
        super(klass)
        @options = Deckhand::Job::Options.merge({}, options, klass, check: false)
        at(interval) if interval
      end

      # Sidekiq 8's perform_inline checks the arguments as a push does
      # (Sidekiq.strict_args!); 7.3's checks none: perform gets them as JSON
      # makes them (Symbols as Strings), where a push would refuse them.
      def perform_inline(*args)
        DropIn.version.perform_inline_checks_arguments? ? super(*StrictArgs.apply(args, @klass.name)) : super(*JSON.parse(JSON.generate(args)))
      end

      alias_method :perform_sync, :perform_inline

      # Sidekiq's perform_at is its perform_in: a small number is a delay.
      def perform_at(time, *args) = perform_in(time, *args)

      def perform_bulk(args_list, **options)
        args_list = args_list.to_a if args_list.is_a?(Enumerator) # a lazy one too, as in Sidekiq
        super
      end

      private

      # Sidekiq reads any interval or time with to_f, a String's leading
      # number included ("300" is 300 s, "5 minutes" 5 s): drop-in mode takes
      # what Sidekiq takes and reads it as Sidekiq does (plain Deckhand
      # refuses a String).
      def check_time!(value, method, wanted) = value.is_a?(String) || super

      # Through the job's client class (Sidekiq.transactional_push!'s, or
      # sidekiq_options client_class:) when it names one, else through a
      # Sidekiq::Client, as Sidekiq's perform_async and perform_in push: code
      # that wraps or stubs Sidekiq::Client#push (a test's stubs, a plugin's
      # prepend) sees every push, and the client checks the arguments
      # (Sidekiq.strict_args!) and files a bulk push's "at" in the schedule,
      # one due already too.
      def push(method, item)
        DropIn.push_errors do
          client = ClientClass.for_push(@klass, @options[ClientClass::KEY]) || Sidekiq::Client
          # A time not to come goes to the queue, as Sidekiq's perform_in
          # has it (its Client.push files any "at" in the schedule).
          item.delete("at") if method == :push && item["at"].is_a?(Numeric) && item["at"] <= Time.now.to_f
          declared = item.delete("pool")
          client.new(pool: @options["pool"] || Deckhand::Client.via_target || declared).public_send(method, item)
        end
      end

      def client_class = Sidekiq::Client

      # The item names the class itself, which client middleware gets, as in Sidekiq.
      def item(args)
        item = super.merge!("class" => @klass)
        item.delete(ClientClass::KEY)
        item
      end

      # Sidekiq 7.3's perform_inline: client middleware (which may stop the
      # job: nil), the round trip through JSON, server middleware around
      # perform; true once it ran.
      def run_inline(job)
        config = Deckhand.config
        pushed = nil
        config.client_middleware.invoke(*ClientMiddlewareCall.call(job["class"], job, config)) { pushed = job }
        return nil unless pushed
        job = Payload.decode(JSON.generate(pushed))
        instance = @klass.new
        instance.jid = job["jid"]
        instance.deckhand_payload = job
        ran = false
        config.server_middleware.invoke(instance, job, job["queue"]) do
          instance.perform(*job["args"])
          ran = true
        end
        ran || nil
      end

      # Sidekiq's rule: a small number is a delay, a large one an epoch time;
      # a time already past pushes the job to its queue now.
      def at(interval)
        raise ArgumentError, "#{@klass}.set(wait:) needs a number of seconds or a Time, got #{interval.inspect}" unless interval.respond_to?(:to_f)
        now = Time.now.to_f # the application's now, which a test may freeze
        at = interval.to_f
        at += now if at < 1_000_000_000
        @options = @options.merge("at" => at) if at > now
      end
    end
  end
end
