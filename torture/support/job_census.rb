# frozen_string_literal: true

module Torture
  # Where in the system under test's Redis the given jids are: in a queue, in
  # flight (a process's in-flight record: its lots and landing lists), in the schedule,
  # retry or dead set, or nowhere. A job not finished when a drain gives up
  # is late if it is still in one of these places, and lost only if it is
  # nowhere. Reads every key (a torture run's Redis holds a few hundred);
  # a payload is found by its "jid" field, whatever the key's type.
  #
  #   JobCensus.new(redis).places(missing)  # => {"queue" => 120, "in-flight" => 3, "nowhere" => 0}
  class JobCensus
    JID = /"jid":"(\h+)"/
    PLACES = [["in-flight", /inflight|landing|:lot:/], ["schedule", /\Aschedule\z/], ["retry", /\Aretry\z/],
      ["dead", /\Adead\z/], ["queue", /\Aqueue:/]].freeze

    def initialize(redis)
      @redis = redis
    end

    # Counts of `jids` per place, the places holding none left out but
    # "nowhere", always there.
    def places(jids)
      wanted = jids.to_h { |jid| [jid, true] }
      found = {}
      keys.each do |key|
        place = PLACES.find { |_, pattern| key.match?(pattern) }&.first or next
        values(key).each do |value|
          value.scan(JID) { |(jid)| found[jid] ||= place if wanted[jid] }
        end
      end
      counts = found.values.tally
      counts.merge("nowhere" => jids.size - found.size)
    end

    # "queue 120, in-flight 3, nowhere 0"
    def self.text(places) = places.map { |place, count| "#{place} #{count}" }.join(", ")

    private

    def keys
      cursor = "0"
      all = []
      loop do
        cursor, batch = @redis.call("SCAN", cursor, "COUNT", 1000)
        all.concat(batch)
        return all if cursor == "0"
      end
    end

    def values(key)
      case @redis.call("TYPE", key)
      when "list" then @redis.call("LRANGE", key, 0, -1)
      when "zset" then @redis.call("ZRANGE", key, 0, -1)
      when "hash" then @redis.call("HVALS", key)
      when "set" then @redis.call("SMEMBERS", key)
      when "string" then [@redis.call("GET", key).to_s]
      else []
      end
    end
  end
end
