# frozen_string_literal: true

require "digest/sha1"
require_relative "job_record"

module Deckhand
  class API
    # A job in the schedule, retry or dead set. Its key ("<score>-<jid>") finds
    # it again in O(log n), whatever has happened to the rest of the set. An
    # entry with no jid (bytes that are not a job) goes by a digest instead.
    #
    #   entry = api.retries.fetch("1732000000.125-b4a577edbccf1d805744efa9")
    #   entry.at        # => when it is due (retry, schedule) or died (dead)
    #   api.retries.retry([entry])
    #
    # In cluster mode `shard` names the queue whose sorted set holds it
    # (nil in plain mode, where one set holds every queue's).
    class SetEntry < JobRecord
      attr_reader :score, :rank, :shard

      def initialize(raw, score, rank: nil, shard: nil)
        super(raw)
        @score = score
        @rank = rank
        @shard = shard
      end

      # The entry's key in the dashboard's URLs: its score and #ident.
      def key = "#{Store::Sets::OneSet.score_string(score)}-#{ident}"

      # The jid, or for an entry without one a digest of its bytes.
      def ident = jid || "raw#{Digest::SHA1.hexdigest(raw)[0, 24]}"

      # When the entry is due (scheduled, retry) or died (dead), as a Time.
      def at = Time.at(score)

      # Splits a key into [score, jid]; nil when it is not one.
      def self.parse_key(key)
        score, jid = key.to_s.split("-", 2)
        return nil if jid.nil? || jid.empty?
        [Float(score), jid]
      rescue ArgumentError
        nil
      end
    end
  end
end
