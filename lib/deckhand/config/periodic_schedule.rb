# frozen_string_literal: true

module Deckhand
  class Config
    # The periodic (cron) jobs of a Config, each checked as it is registered.
    # Needs the fugit gem, loaded only here: processes that register no
    # periodic job never load it. See docs/periodic.md.
    #
    #   Deckhand.configure do |c|
    #     c.periodic do |cron|
    #       cron.timezone = "Europe/Paris"     # default zone (else the server's own)
    #       cron.grace = 600                   # run a missed tick up to 10 minutes late
    #       cron.register("0 2 * * *", "NightlyReportJob", queue: "reports", args: ["daily"])
    #       cron.register("*/15 * * * * *", "HeartbeatPingJob")
    #     end
    #   end
    #
    #   # config/deckhand.yml
    #   periodic:
    #     timezone: Europe/Paris
    #     jobs:
    #       nightly_report: {cron: "0 2 * * *", class: NightlyReportJob, queue: reports, args: [daily]}
    #     sidekiq_schedule: config/schedule.yml   # a sidekiq-cron / sidekiq-scheduler file, read as is
    class PeriodicSchedule
      # Seconds a missed tick may be late and still run, unless set (#grace=).
      GRACE = 300
      # The keys of the periodic settings.
      KEYS = %w[timezone grace jobs sidekiq_schedule].freeze
      # The keys of one periodic job.
      JOB_KEYS = %w[cron class queue args tz name].freeze

      attr_reader :grace, :timezone

      # The host's time zone's IANA name, or "UTC".
      def self.local_zone = ::EtOrbi.determine_local_tzone&.name || "UTC"

      def initialize
        @entries = {}
        @grace = GRACE
        @timezone = nil
      end

      # Adds one periodic job. `klass` is the job class's name (a String: it
      # is looked up when a tick fires). `name` tells entries apart in Redis
      # and the dashboard; it defaults to the class name.
      def register(cron, klass, queue: nil, args: [], tz: nil, name: nil, options: {})
        load_fugit
        klass = klass.name if klass.is_a?(Module)
        raise ConfigError, "periodic job class must be a class name String, got #{klass.inspect}" unless klass.is_a?(String) && !klass.empty?
        name = (name || klass).to_s
        raise ConfigError, "periodic entry #{name.inspect}: name must be 1 to 200 characters" unless (1..200).cover?(name.size)
        check_args!(name, args)
        named = (queue.is_a?(String) || queue.is_a?(Symbol)) && !queue.empty?
        unless queue.nil? || named
          raise ConfigError, "periodic entry #{name.inspect}: queue must be a queue name, got #{queue.inspect}"
        end
        entry = Periodic::Entry.new(name: name, cron: cron.to_s, klass: klass,
          queue: queue&.to_s, args: args, tz: tz || @timezone, options: options)
        add(entry)
      end

      # The zone of the entries registered after it that name none.
      def timezone=(name)
        load_fugit
        raise ConfigError, "periodic timezone #{name.inspect} is unknown; use an IANA name like \"Europe/Paris\" or \"UTC\"" unless ::EtOrbi.get_tzone(name.to_s)
        @timezone = name.to_s
      end

      # Seconds a missed tick may be late and still run (once, the latest).
      def grace=(seconds)
        unless seconds.is_a?(Numeric) && seconds >= 1 && seconds <= 7 * 86_400
          raise ConfigError, "periodic grace must be a number of seconds from 1 to 604800 (a week), got #{seconds.inspect}"
        end
        @grace = seconds
      end

      # The settings of a config file: {timezone:, grace:, jobs: {name => {cron:, class:, ...}}}.
      def apply(settings)
        raise ConfigError, "periodic must be a mapping with jobs: (and optional timezone:, grace:), got #{settings.inspect}" unless settings.is_a?(Hash)
        settings = settings.transform_keys(&:to_s)
        unknown = settings.keys - KEYS
        raise ConfigError, "unknown periodic setting #{unknown.first.inspect}; known: #{KEYS.join(", ")}" unless unknown.empty?
        self.timezone = settings["timezone"] if settings["timezone"]
        self.grace = settings["grace"] if settings["grace"]
        jobs(settings["jobs"] || {}).each { |name, spec| register_spec(name, spec) }
        load_sidekiq_schedule(settings["sidekiq_schedule"]) if settings["sidekiq_schedule"]
        self
      end

      # Registers the entries of a sidekiq-cron or sidekiq-scheduler schedule:
      # a file's path (config/schedule.yml) or its entries (as in a config
      # file's `periodic: {sidekiq_schedule: ...}`). See Periodic::SidekiqSchedule.
      def load_sidekiq_schedule(source)
        load_fugit
        require_relative "../periodic/sidekiq_schedule"
        Periodic::SidekiqSchedule.register(self, source)
      end

      # Every registered entry.
      def entries = @entries.values

      # The entry named `name`, or nil.
      def [](name) = @entries[name]

      # Whether any entry is registered.
      def any? = !@entries.empty?

      # How many entries.
      def size = @entries.size

      # Freezes the entries with the configuration at boot.
      def freeze
        @entries.freeze
        super
      end

      private

      # The same entry again is fine (the CLI reads its config file twice);
      # another under a name taken is a mistake, not a replacement.
      def add(entry)
        taken = @entries[entry.name]
        if taken && taken.to_h != entry.to_h
          raise ConfigError, "periodic entry #{entry.name.inspect} is registered twice, differently " \
            "(#{taken.cron} and #{entry.cron}); give each its own name: (it defaults to the class name)"
        end
        @entries[entry.name] = entry
        self
      end

      def jobs(list)
        return list.map { |spec| [nil, spec] } if list.is_a?(Array)
        return list.to_a if list.is_a?(Hash)
        raise ConfigError, "periodic jobs must be a mapping of name => {cron:, class:}, got #{list.inspect}"
      end

      def register_spec(name, spec)
        raise ConfigError, "periodic job #{name.inspect} must be a mapping like {cron: \"0 2 * * *\", class: MyJob}" unless spec.is_a?(Hash)
        spec = spec.transform_keys(&:to_s)
        unknown = spec.keys - JOB_KEYS
        raise ConfigError, "periodic job #{name.inspect}: unknown key #{unknown.first.inspect}; known: #{JOB_KEYS.join(", ")}" unless unknown.empty?
        %w[cron class].each { |key| raise ConfigError, "periodic job #{name.inspect} needs #{key}:" unless spec[key] }
        register(spec["cron"], spec["class"].to_s, queue: spec["queue"], args: spec["args"] || [], tz: spec["tz"],
          name: name || spec["name"])
      end

      def check_args!(name, args)
        raise ConfigError, "periodic entry #{name.inspect}: args must be an Array, got #{args.inspect}" unless args.is_a?(Array)
        Payload::Validator.check_args!(args, name)
      rescue InvalidJob => e
        raise ConfigError, "periodic entry #{name.inspect}: #{e.message}"
      end

      def load_fugit
        require "fugit"
        require_relative "../periodic/timing"
        require_relative "../periodic/entry"
      rescue LoadError => e
        raise ConfigError, "periodic jobs need the fugit gem: add `gem \"fugit\"` to your Gemfile " \
          "(it is loaded only when periodic jobs are configured)", cause: e
      end
    end
  end
end
