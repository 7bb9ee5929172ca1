# frozen_string_literal: true

require "tmpdir"
require "fileutils"

module Deckhand
  # Private redis-servers beyond the harness's own, one per name: started on
  # a free port the first time a test asks for it, stopped once the tests
  # have run.
  #
  #   PrivateRedis.server(:faults).url   # => "redis://127.0.0.1:41231/0"
  #   PrivateRedis.server(:lru, extra: %w[--maxmemory-policy allkeys-lru])   # redis-server's options, at its start
  module PrivateRedis
    @servers = {}

    def self.server(name, extra: [])
      @servers[name] ||= begin
        dir = Dir.mktmpdir("deckhand-test-redis-#{name}")
        server = DevRedis.start(dir: dir, persistent: false, extra: extra)
        Minitest.after_run do
          server.stop
          FileUtils.rm_rf(dir)
        end
        server
      end
    end
  end
end
