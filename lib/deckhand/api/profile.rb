# frozen_string_literal: true

module Deckhand
  class API
    # One job's profile (Deckhand::Profiler, docs/profiling.md), kept a day:
    # who asked (its token), which job, how long it ran, how big it is, and
    # its gzipped data, read when asked for.
    #
    #   profile = Deckhand::API.new.profiles.first
    #   profile.key         # => "mike-2b2b4f5d..." (<token>-<jid>)
    #   profile.type        # => "HardJob" (an Active Job's own class)
    #   profile.elapsed     # => 0.42 (seconds)
    #   profile.viewer      # => :firefox (Vernier's format) or :speedscope (stackprof's)
    #   File.binwrite("#{profile.key}.json.gz", profile.data)
    class Profile
      attr_reader :key, :jid, :type, :token, :size, :elapsed, :started_at, :format

      # Every profile not expired, the newest first.
      def self.all(config)
        keys = Store::Profiles.keys(config.store, now: Time.now.to_f)
        keys.zip(Store::Profiles.records(config.store, keys)).filter_map do |key, fields|
          new(key, fields, config) if fields
        end
      end

      # The profile at `key` if the profiles set lists it (an address names
      # no other hash), else nil.
      def self.find(config, key)
        return nil unless Store::Profiles.listed?(config.store, key)
        fields = Store::Profiles.records(config.store, [key]).first
        fields && new(key, fields, config)
      end

      def initialize(key, fields, config)
        @key = key
        @config = config
        @jid, @type, @token = fields.values_at("jid", "type", "token")
        @size = fields["size"].to_i
        @elapsed = fields["elapsed"].to_f
        @started_at = Time.at(fields["started_at"].to_i)
        # Sidekiq writes Vernier's format and says nothing of it.
        @format = fields["format"] || "vernier"
      end

      # Where the profile opens: :firefox (Vernier's) or :speedscope (StackProf's).
      def viewer = (@format == "vernier") ? :firefox : :speedscope

      # The profile's bytes as recorded.
      def data = Store::Profiles.data(@config.store, @key)

      # The id a profile viewer gave it once uploaded (ProfileUpload), or nil.
      def viewer_id = Store::Profiles.viewer_id(@config.store, @key)

      # Records the id an external viewer gave the uploaded profile.
      def viewer_id=(id)
        Store::Profiles.save_viewer_id(@config.store, @key, id)
      end
    end
  end
end
