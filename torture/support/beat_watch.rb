# frozen_string_literal: true

module Torture
  # When the fleet could run, as its heartbeats tell: sampled as the driver
  # polls, how long since the newest beat of any live server, by Redis'
  # clock (the beats are written by it). While no server beats, none of
  # their schedulers can move a due job either: on a starved machine a
  # scheduled job is late by that much, which is not a wrong clock. A server
  # whose clock misleads its scheduler still beats, and its job is late all
  # the same.
  #
  #   watch = BeatWatch.new(redis)
  #   watch.sample(identities)      # each poll of the driver
  #   watch.silence(from, to)       # => the longest no server beat, in those seconds since the epoch
  class BeatWatch
    def initialize(redis)
      @redis = redis
      @samples = [] # [Redis' time, seconds since the newest beat]
    end

    def sample(identities)
      return if identities.empty?
      time, *beats = @redis.pipelined do |pipe|
        pipe.call("TIME")
        identities.each { |identity| pipe.call("HGET", identity, "beat") }
      end
      newest = beats.compact.map(&:to_f).max or return
      at = Integer(time[0]) + (Integer(time[1]) / 1_000_000.0)
      @samples << [at, at - newest]
    end

    # The longest silence of the fleet that overlapped [from, to], counted
    # from `from` at the earliest: 0.0 when no sample saw one.
    def silence(from, to)
      @samples.filter_map { |at, silent| [at, to].min - [at - silent, from].max if at >= from && at - silent <= to }.max.to_f
    end
  end
end
