# frozen_string_literal: true

require "json"

module Deckhand
  module Periodic
    # One periodic job: its name, its cron (with a zone), the job class (a
    # String, looked up when a tick fires), its queue and arguments. Built
    # and validated by Config::PeriodicSchedule#register; frozen.
    #
    #   entry = Entry.new(name: "nightly", cron: "0 2 * * *", klass: "NightlyReportJob",
    #     queue: "reports", args: ["daily"], tz: "Europe/Paris")
    #   entry.timing.next_after(Time.now.to_i)    # epoch seconds of the next run
    #   entry.to_h                                # what the leader stores in Redis
    #
    # `options` are job options the tick's job gets over its class's own
    # (retry: 2), as Sidekiq Enterprise's `mgr.register(cron, klass, retry: 2)`.
    class Entry
      attr_reader :name, :cron, :klass, :queue, :args, :options, :timezone, :timing

      def initialize(name:, cron:, klass:, queue: nil, args: [], tz: nil, options: {})
        @name = name
        @klass = klass
        @queue = queue
        @args = args
        @options = options.empty? ? {} : options!(options)
        parsed = Fugit.parse_cronish(cron) or raise ConfigError, "#{what}: #{cron.inspect} is not a cron " \
          "(like \"0 2 * * *\", \"*/15 * * * * *\" with seconds, or \"every day at 9am\")"
        @timezone = zone!(parsed, tz)
        @cron = cron.strip
        fields = parsed.timezone ? parsed.to_cron_s.split[0...-1].join(" ") : parsed.to_cron_s
        @timing = Timing.new(Fugit.parse_cron("#{fields} #{@timezone}"))
        freeze
      end

      # The cron as written plus its zone, the queue and class: what every
      # process compares with the leader's schedule.
      def to_h
        hash = {"cron" => @cron, "timezone" => @timezone, "class" => @klass, "queue" => @queue, "args" => @args}
        @options.empty? ? hash : hash.merge("options" => @options)
      end

      private

      RESERVED = %w[class args jid queue at enqueued_at created_at].freeze

      def options!(options)
        taken = options.keys.map(&:to_s) & RESERVED
        raise ConfigError, "#{what}: #{taken.first}: is not a job option here; give queue: and args: to register" unless taken.empty?
        Job::Options.merge({}, options, what)
      rescue ArgumentError => e
        raise ConfigError, e.message, cause: e
      end

      def what = "periodic entry #{@name.inspect} (#{@klass})"

      # The entry's zone: tz:, or the zone written in the cron, or the
      # default given (Config::PeriodicSchedule#timezone); they must agree.
      def zone!(parsed, tz)
        written = parsed.timezone&.name
        if tz && written && tz != written
          raise ConfigError, "#{what}: the cron names zone #{written} but tz: says #{tz}; give one of them"
        end
        name = tz || written || Config::PeriodicSchedule.local_zone
        return name if ::EtOrbi.get_tzone(name)
        raise ConfigError, "#{what}: unknown time zone #{name.inspect}; use an IANA name like \"Europe/Paris\" or \"UTC\""
      end
    end
  end
end
