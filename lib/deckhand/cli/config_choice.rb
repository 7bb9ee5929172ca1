# frozen_string_literal: true

require_relative "config_file"

module Deckhand
  class CLI
    # Which config files `deckhand` reads, and their settings together.
    # Without -C: config/deckhand.yml when present. `-C config/sidekiq.yml`
    # (any sidekiq*.yml) reads config/deckhand.yml as well, so a shop moving
    # from Sidekiq keeps Sidekiq's file as is and puts what only Deckhand has
    # (periodic jobs, ...) in Deckhand's: the -C file wins a setting both
    # give (logged), and their `periodic` sections add up. Any other -C file
    # is read alone, and a config/deckhand.yml it leaves unread is named in
    # the log.
    #
    #   choice = ConfigChoice.new("config/sidekiq.yml", "production")
    #   choice.settings # => {concurrency: 10, queues: [...], periodic: {...}}
    #   choice.notes    # => [[:info, "read config/deckhand.yml and config/sidekiq.yml (-C) ..."]]
    class ConfigChoice
      DEFAULT = "config/deckhand.yml"
      SIDEKIQ_FILE = /\Asidekiq[\w.-]*\.ya?ml\z/

      # [level, message] pairs for the log, once the logger exists.
      attr_reader :notes

      def initialize(explicit, environment)
        @explicit = explicit
        @environment = environment
        @notes = []
      end

      # The files' settings (Symbol keys); {} when there is none.
      def settings = @settings ||= choose

      private

      def choose
        default = File.exist?(DEFAULT) ? DEFAULT : nil
        return default ? load(default) : {} unless @explicit
        return load(@explicit) if default.nil? || same_file?(@explicit, default)
        unless File.basename(@explicit).match?(SIDEKIQ_FILE)
          @notes << [:warn, "#{default} is not read: -C #{@explicit} replaces it. Put its settings in #{@explicit}, " \
            "or start deckhand without -C to read #{default}"]
          return load(@explicit)
        end
        @notes << [:info, "read #{default} and #{@explicit} (-C): Sidekiq's file gives the settings both files have; " \
          "their periodic jobs add up"]
        combine(load(default), load(@explicit), default)
      end

      def load(path) = ConfigFile.load(path, @environment)

      def same_file?(a, b) = File.exist?(a) && File.realpath(a) == File.realpath(b)

      def combine(base, over, default)
        base.merge(over) do |key, mine, theirs|
          next periodic(mine, theirs, default) if key == :periodic
          unless mine == theirs
            @notes << [:warn, "#{key} is set in #{default} (#{mine.inspect}) and in #{@explicit} (#{theirs.inspect}): " \
              "#{@explicit}'s wins; remove it from one of them"]
          end
          theirs
        end
      end

      def periodic(mine, theirs, default)
        return theirs unless mine.is_a?(Hash) && theirs.is_a?(Hash)
        mine.merge(theirs) do |key, a, b|
          next a.merge(b) if key.to_s == "jobs" && a.is_a?(Hash) && b.is_a?(Hash)
          next b if a == b
          raise ConfigError, "periodic #{key} is given in #{default} and in #{@explicit} (Sidekiq's schedule); keep one of them"
        end
      end
    end
  end
end
