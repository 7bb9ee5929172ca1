# frozen_string_literal: true

module DeckhandBench
  module Systems
    # How the bench runs Sidekiq: its own `sidekiq` CLI as the server process
    # (default fetch, BRPOP), its own client for pushes. Needs the sidekiq gem
    # (the Gemfile's compat group); the bench runs Deckhand alone without it.
    #
    #   system = DeckhandBench::Systems::SidekiqSystem.load  # => nil when sidekiq is not installed
    #   system.server(threads: 10, queues: ["bench"])
    class SidekiqSystem
      APP = File.expand_path("../../../app/sidekiq_app.rb", __dir__)

      def self.load
        require "sidekiq"
        new
      rescue LoadError
        nil
      end

      def name = "sidekiq"

      def label = "Sidekiq #{Sidekiq::VERSION}"

      def app = APP

      def server(threads:, queues:)
        [executable, "-r", APP, "-c", threads.to_s, *queues.flat_map { |q| ["-q", q] }]
      end

      # One process, one thread pool, the three queues at equal weight: Sidekiq
      # polls them in a random order on each fetch, so no kind of job waits
      # for another to drain.
      def mixed_server(threads:)
        [executable, "-r", APP, "-c", threads.to_s, "-q", "noop,1", "-q", "cpu,1", "-q", "io,1"]
      end

      def mixed_setup(threads:) = "one pool of #{threads} threads, queues noop,1 cpu,1 io,1 (random order)"

      def client(url) = Sidekiq::Client.new(pool: Sidekiq::RedisConnection.create(url: url, size: 1))

      def push(client, klass, queue, args) = client.push("class" => klass, "queue" => queue, "args" => args)

      def push_bulk(client, klass, queue, list) = client.push_bulk("class" => klass, "queue" => queue, "args" => list)

      private

      def executable = Gem.bin_path("sidekiq", "sidekiq")
    end
  end
end
