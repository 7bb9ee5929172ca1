# frozen_string_literal: true

require "tmpdir"
require "fileutils"

module Deckhand
  # A Redis of the test's own that it can stop and start again (a restart,
  # an outage), and a configuration pushing to it with reliable push on.
  #
  #   include Deckhand::ReliablePushHelpers
  #   client = Deckhand::Client.new(config: config)
  #   @server.stop   # pushes are held from here on
  module ReliablePushHelpers
    def setup
      super
      @dir = Dir.mktmpdir("deckhand-reliable-push")
      @server = redis_server.start
    end

    def teardown
      @server&.stop
      FileUtils.rm_rf(@dir)
      super
    end

    def redis_server(port = nil) = Deckhand::DevRedis.new(dir: @dir, port: port, persistent: true, extra: %w[--appendfsync always])

    def config(**settings)
      config = new_config(redis: {url: @server.url, connect_timeout: 0.2, read_timeout: 0.5}, reliable_push: true, **settings)
      config.logger = Logger.new(@log = StringIO.new)
      config
    end
  end
end
