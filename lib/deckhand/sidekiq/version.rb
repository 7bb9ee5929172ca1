# frozen_string_literal: true

require_relative "../errors"

module Deckhand
  module DropIn
    # The Sidekiq version drop-in mode stands in for: 8 (Sidekiq 8.1) or 7
    # (Sidekiq 7.3). Chosen once, when drop-in mode loads, and asked
    # wherever the two versions behave differently: each difference is one
    # method here, and the code that behaves differently asks it, never
    # the version number.
    #
    # The choice: `require "deckhand/sidekiq/7"` (or `/8`) in place of
    # `require "deckhand/sidekiq"` (the Gemfile's `require:`), or
    # DECKHAND_SIDEKIQ=7 (or 8) in the environment. Without either, 8 on
    # Ruby 3.2 and later (Sidekiq 8's floor), 7 on Ruby 3.1, where Sidekiq 8
    # cannot run.
    #
    #   version = Deckhand::DropIn::Version.choose(env: {"DECKHAND_SIDEKIQ" => "7"})
    #   version.sidekiq_version    # => "7.3.0"
    #   version.timestamps         # => :float
    #   Deckhand::DropIn.version   # the one drop-in mode runs as
    class Version
      SIDEKIQ_VERSIONS = {7 => "7.3.0", 8 => "8.1.7"}.freeze
      ENV_NAME = "DECKHAND_SIDEKIQ"
      SIDEKIQ_8_RUBY = "3.2"
      TIME_NOW = -> { Time.now.to_f }
      private_constant :TIME_NOW

      # The version asked for by `asked` (a require of deckhand/sidekiq/7 or
      # /8), the environment, or the default for this Ruby.
      def self.choose(asked = nil, env: ENV, ruby: RUBY_VERSION)
        named = env[ENV_NAME].to_s.strip
        from_env = named.empty? ? nil : major_of(named)
        if asked && from_env && asked != from_env
          raise ConfigError, "drop-in mode was asked to be Sidekiq #{asked} (require \"deckhand/sidekiq/#{asked}\") and Sidekiq " \
            "#{from_env} (#{ENV_NAME}=#{named}): keep one of the two"
        end
        new(asked || from_env || default_for(ruby))
      end

      def self.major_of(named)
        major = named[/\A(\d+)(\.\d+)*\z/, 1].to_i
        return major if SIDEKIQ_VERSIONS.key?(major)
        raise ConfigError, "#{ENV_NAME}=#{named} names no Sidekiq version drop-in mode stands in for: set it to 7 (Sidekiq 7.3) " \
          "or 8 (Sidekiq 8.1), or leave it unset (8 on Ruby #{SIDEKIQ_8_RUBY} and later, 7 before)"
      end

      def self.default_for(ruby) = (Gem::Version.new(ruby) >= Gem::Version.new(SIDEKIQ_8_RUBY)) ? 8 : 7

      attr_reader :major

      def initialize(major)
        raise ArgumentError, "drop-in mode stands in for Sidekiq #{SIDEKIQ_VERSIONS.keys.join(" or ")}, not #{major.inspect}" unless SIDEKIQ_VERSIONS.key?(major)
        @major = major
        freeze
      end

      # Sidekiq::VERSION.
      def sidekiq_version = SIDEKIQ_VERSIONS.fetch(@major)

      def to_s = "Sidekiq #{sidekiq_version}"

      # created_at and enqueued_at: Sidekiq 8 writes Integer milliseconds,
      # unless a Sidekiq 7 shares the Redis (the `auto` rule,
      # Config::FleetVersions); Sidekiq 7 writes Float seconds.
      def timestamps = eight? ? :auto : :float

      # The clock a push is dated by: Sidekiq 8 reads the system's real-time
      # clock (nil: Deckhand's own way); 7.3 reads Time.now, which a test
      # may freeze.
      def push_clock = eight? ? nil : TIME_NOW

      # Sidekiq 8 calls the death handlers for a job discarded once its
      # retries are over (`:discard`, `dead: false`), its `discarded_at` set;
      # Sidekiq 7.3 only for one with `dead: false`.
      def death_handlers_on_discard? = eight?

      # The Active Job wrapper class written while no Sidekiq process shares
      # the Redis: the name each version writes (both run either).
      def active_job_wrapper = eight? ? "Sidekiq::ActiveJob::Wrapper" : "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper"

      # Sidekiq 8's perform_inline refuses arguments a push would refuse;
      # Sidekiq 7.3's passes them as JSON makes them.
      def perform_inline_checks_arguments? = eight?

      # Sidekiq 8's Pretty log line leads with its (coloured) level; 7.3's
      # puts the level before the message.
      def level_first_log_lines? = eight?

      # A job's log_level: Sidekiq 8 sets it on any logger for the job
      # (Logger#with_level); 7.3 only on one that answers log_at.
      def job_log_level_on_any_logger? = eight?

      # What Sidekiq's Redis connections tell the server (CLIENT SETINFO
      # lib-name): Sidekiq 8 names itself and its version, 7.3 nothing.
      def driver_info = eight? ? "sidekiq_v#{sidekiq_version}" : nil

      # HEAD / on the dashboard: an empty body (Sidekiq 8) or the default
      # queue's size (7.3).
      def empty_head_response? = eight?

      # A Web helper's style_tag: Sidekiq 8 adds it to the page's head and
      # returns the head's tags; 7.3 returns the tag.
      def style_tag_adds_to_head? = eight?

      # The cattr keys Sidekiq::CurrentAttributes writes: Sidekiq 8
      # serializes the attributes as Active Job serializes arguments (a
      # Time, a record's GlobalID survive); 7.3 writes them as a Hash.
      def cattr_serialized? = eight?

      # A cancelled iterable job: Sidekiq 8 runs on_cancel (then on_stop and
      # on_complete); 7.3 has no on_cancel.
      def iterable_on_cancel? = eight?

      # A Web page's language from Accept-Language: Sidekiq 8 looks for a
      # file of a wanted language and region first, then of a bare
      # language; 7.3 takes the first wanted whose language has a file.
      def locale_by_region? = eight?

      # Sidekiq's metrics as each version keeps and answers them: the keys
      # of Sidekiq::Metrics::Histogram (Sidekiq 8's start with "h|") and
      # Sidekiq::Metrics::Query's results (Sidekiq 8's ISO-8601 buckets, by
      # the minute or by 10 minutes with `hours:`; 7.3's "HH:MM" minutes).
      # The Store::Records::ExecutionMetrics::SIDEKIQ_LAYOUTS key.
      def metrics_layout = @major

      # The dashboard's Content-Security-Policy: Sidekiq's of each version
      # (8 takes styles by nonce, 7.3 inline ones and from any https
      # origin). The DropIn::WebPolicy::POLICIES key.
      def web_policy = @major

      private

      def eight? = @major == 8
    end

    # The version drop-in mode runs as, chosen on first call (when
    # deckhand/sidekiq loads).
    def self.version = @version ||= Version.choose(@asked)

    # `require "deckhand/sidekiq/7"` (or /8): asks for that version, which
    # must come before drop-in mode loads, as the version is chosen once.
    def self.ask_version(major)
      if @version && @version.major != major
        raise ConfigError, "drop-in mode already loaded as #{@version}; require \"deckhand/sidekiq/#{major}\" before anything " \
          "requires \"deckhand/sidekiq\" or \"sidekiq\" (in the Gemfile: gem \"deckhand\", require: \"deckhand/sidekiq/#{major}\", " \
          "above the gems that depend on sidekiq), or set #{Version::ENV_NAME}=#{major}"
      end
      @asked = major
    end
  end
end
