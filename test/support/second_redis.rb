# frozen_string_literal: true

require "tmpdir"

module Deckhand
  # A second private redis-server, for tests of client-side sharding (pushes
  # to another Redis, a dashboard switching between two): started on a free
  # port the first time it is asked for (a job class may name it as it
  # loads), stopped once the tests have run.
  module SecondRedis
    class << self
      def server
        @server ||= begin
          dir = Dir.mktmpdir("deckhand-test-redis-2")
          server = DevRedis.start(dir: dir, persistent: false)
          Minitest.after_run do
            server.stop
            FileUtils.rm_rf(dir)
          end
          server
        end
      end

      def url = server.url

      def client = @client ||= RedisClient.new(url: url)

      def store = @store ||= Deckhand::Store.new({url: url}, size: 4)
    end
  end
end
