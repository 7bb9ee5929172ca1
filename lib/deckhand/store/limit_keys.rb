# frozen_string_literal: true

module Deckhand
  class Store
    # The Redis keys of limiters (Deckhand::Limiter). A limiter's state lives
    # under its type and name, so two limiters of different types never share
    # state; every key carries a TTL, so dynamic names ("stripe-#{account}")
    # do not leak keys.
    #
    #   deckhand:limit:concurrent:<name>        zset: holder id => lock expiry (ms)
    #   deckhand:limit:concurrent:<name>:wake   list: one entry per release, what waiters block on
    #   deckhand:limit:<type>:<name>            bucket/leaky/points: hash; window: zset
    #   deckhand:limit:metrics:<name>           hash: type, size, held, waited, wait_ms, over, reclaimed
    #   deckhand:limits                         zset: name => last use (ms), for the dashboard;
    #                                           names unused for a day are pruned
    #                                           whenever a new name is first used
    module LimitKeys
      PREFIX = "deckhand:limit:"

      # name => when it was last checked (epoch ms).
      INDEX = "deckhand:limits"

      module_function

      def state(type, name) = "#{PREFIX}#{type}:#{name}"

      def wake(name) = "#{PREFIX}concurrent:#{name}:wake"

      def metrics(name) = "#{PREFIX}metrics:#{name}"
    end
  end
end
