# frozen_string_literal: true

require "tmpdir"
require "fileutils"

module Deckhand
  # Private redis-servers beyond the harness's own, one per name: started on
  # a free port the first time a test asks for it, stopped once the tests
  # have run.
  #
  #   PrivateRedis.server(:faults).url   # => "redis://127.0.0.1:41231/0"
  module PrivateRedis
    @servers = {}

    def self.server(name)
      @servers[name] ||= begin
        dir = Dir.mktmpdir("deckhand-test-redis-#{name}")
        server = DevRedis.start(dir: dir, persistent: false)
        Minitest.after_run do
          server.stop
          FileUtils.rm_rf(dir)
        end
        server
      end
    end
  end
end
