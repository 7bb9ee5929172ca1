# frozen_string_literal: true

module DeckhandBench
  module Systems
    # How the bench runs Deckhand: its own CLI as the server process, its own
    # client for pushes, reliable fetch on (it is always on).
    #
    #   system = DeckhandBench::Systems::DeckhandSystem.new
    #   system.server(threads: 10, queues: ["bench"])  # => [".../exe/deckhand", "-r", ..., "-c", "10", "-q", "bench"]
    #   client = system.client("redis://127.0.0.1:6400/0")
    #   system.push_bulk(client, "BenchNoopJob", "bench", [["bench", 1, {}]])
    class DeckhandSystem
      EXE = File.expand_path("../../../../exe/deckhand", __dir__)
      APP = File.expand_path("../../../app/deckhand_app.rb", __dir__)
      FIBER_CAPSULE = File.expand_path("../../../app/fiber_capsule.yml", __dir__)
      AUTO_BALANCE = File.expand_path("../../../app/auto_balance.yml", __dir__)

      def name = "deckhand"

      def label = "Deckhand #{Deckhand::VERSION}"

      def app = APP

      def server(threads:, queues:)
        [EXE, "-r", APP, "-c", threads.to_s, *queues.flat_map { |q| ["-q", q] }]
      end

      # Capsules: a thread pool per kind of work, few threads for the CPU-bound
      # queue (more would only queue up for the GVL), many for the I/O-bound one.
      def mixed_server(threads:)
        [EXE, "-r", APP, "-c", "5", "-q", "noop", "-g", "cpu:2:cpu", "-g", "io:#{threads}:io"]
      end

      # One pool of `threads` over the three queues, auto-balanced
      # (auto_balance: true in a config file), no capsule configuration.
      def mixed_auto_server(threads:)
        [EXE, "-r", APP, "-C", AUTO_BALANCE, "-c", threads.to_s, "-q", "noop", "-q", "cpu", "-q", "io"]
      end

      def mixed_auto_setup(threads:) = "one auto-balanced pool of #{threads} threads, queues noop, cpu, io (auto_balance: true)"

      # A capsule of `threads` per queue: one queue per fetch (scenario 8).
      def capsule_server(threads:, queues:)
        [EXE, "-r", APP, "-c", threads.to_s, "-q", queues.first, *queues.drop(1).flat_map { |q| ["-g", "#{q}:#{threads}:#{q}"] }]
      end

      def mixed_setup(threads:) = "capsules: noop 5 threads, cpu 2 threads, io #{threads} threads (-g)"

      # Scenario 7 with the I/O-bound queue on a fiber capsule of 1,000
      # (bench/app/fiber_capsule.yml).
      def fiber_mixed_server = [EXE, "-r", APP, "-C", FIBER_CAPSULE]

      def fiber_mixed_setup = "capsules: noop 5 threads, cpu 2 threads, io 1,000 fibers (bench/app/fiber_capsule.yml)"

      def client(url) = Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: url}))

      def push(client, klass, queue, args) = client.push("class" => klass, "queue" => queue, "args" => args)

      def push_bulk(client, klass, queue, list) = client.push_bulk("class" => klass, "queue" => queue, "args" => list)
    end
  end
end
