# frozen_string_literal: true

require_relative "private_redis"

module Deckhand
  # A second private redis-server, for tests of client-side sharding (pushes
  # to another Redis, a dashboard switching between two): started on a free
  # port the first time it is asked for (a job class may name it as it
  # loads), stopped once the tests have run.
  module SecondRedis
    class << self
      def server = PrivateRedis.server(:second)

      def url = server.url

      def client = @client ||= RedisClient.new(url: url)

      def store = @store ||= Deckhand::Store.new({url: url}, size: 4)
    end
  end
end
