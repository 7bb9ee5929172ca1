# frozen_string_literal: true

module Deckhand
  class Store
    # Profiles of jobs that asked to be profiled (Deckhand::Profiler), where
    # Sidekiq 8 keeps them: the `profiles` sorted set holds each profile's
    # key scored by when it expires (a day after it was taken), the key's
    # hash its fields and the gzipped profile. Sidekiq's dashboard and
    # ProfileSet read them, and Deckhand's read Sidekiq's.
    #
    #   Profiles.save(store, "mike", jid, {"started_at" => t, "type" => "HardJob", ...}, now: Time.now.to_f)
    #   Profiles.keys(store, now: Time.now.to_f)   # => ["mike-2b2b...", ...], newest first
    #   Profiles.records(store, keys)              # => [{"jid" => ..., "size" => "5120", ...}, ...]
    #   Profiles.data(store, "mike-2b2b...")       # => the gzipped bytes, nil for no such profile
    module Profiles # :nodoc:
      TTL = 86_400
      FIELDS = %w[started_at jid type token size elapsed format].freeze

      module_function

      # The hash first, then its entry in the set: a reader that finds the
      # entry finds the profile.
      def save(store, token, jid, fields, now:)
        key = store.layout.profile(token, jid)
        store.pipelined do |pipe|
          pipe.call("HSET", key, *fields.flat_map { |name, value| [name.to_s, value.to_s] })
          pipe.call("EXPIRE", key, TTL)
        end
        store.call("ZADD", store.layout.profiles, (now + TTL).to_s, key)
        key
      end

      # The keys of the profiles not expired, the newest first; the expired
      # ones leave the set.
      def keys(store, now:)
        set = store.layout.profiles
        store.call("ZREMRANGEBYSCORE", set, "-inf", now.to_s)
        store.call("ZRANGE", set, "+inf", "0", "BYSCORE", "REV")
      end

      # Each profile's fields (FIELDS, without its data); nil for one whose
      # hash expired since its key was read.
      def records(store, keys)
        return [] if keys.empty?
        replies = store.pipelined { |pipe| keys.each { |key| pipe.call("HMGET", key, *FIELDS) } }
        replies.map { |values| values.compact.empty? ? nil : FIELDS.zip(values).to_h }
      end

      # Only a key of the set is read: a dashboard's address names no other hash.
      def listed?(store, key) = !store.call("ZSCORE", store.layout.profiles, key).nil?

      def data(store, key) = listed?(store, key) ? store.call("HGET", key, "data") : nil

      def viewer_id(store, key) = store.call("HGET", key, "sid")

      def save_viewer_id(store, key, id) = store.call("HSET", key, "sid", id)
    end
  end
end
