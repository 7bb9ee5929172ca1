# frozen_string_literal: true

module Sidekiq
  # Sidekiq::ProcessSet in drop-in mode, on Deckhand::API::ProcessSet: the
  # live server processes, Deckhand's and Sidekiq's alike.
  #
  #   Sidekiq::ProcessSet.new.each { |process| process.quiet! if process["tag"] == "old" }
  #   Sidekiq::ProcessSet["host:1234:0a1b2c"]&.stop!
  #   Sidekiq::ProcessSet.new.total_concurrency
  class ProcessSet
    include Enumerable

    # The live process with this identity, or nil.
    def self.[](identity) = new.find { |process| process.identity == identity }

    def initialize(_clean_plz = true)
      @set = Deckhand::API.new.processes
    end

    def each
      return enum_for(:each) unless block_given?
      @set.each { |info| yield Process.from(info) }
    end

    def size = @set.size

    def total_concurrency = sum { |process| process["concurrency"].to_i }

    def total_rss_in_kb = sum { |process| process["rss"].to_i }

    # Sidekiq Enterprise's leader's identity, "" without one; read once.
    def leader = @leader ||= Deckhand::Store::Records::ProcessRecord.sidekiq_leader(Deckhand.config.store).to_s

    alias_method :total_rss, :total_rss_in_kb

    # One process: its heartbeat's fields by name, as Sidekiq's Hash
    # ("busy", "beat", "quiet", "rss" beside the info's own), and signals.
    class Process
      def self.from(info)
        new(info.to_h.merge("identity" => info.identity, "busy" => info.busy, "beat" => info.beat&.to_f,
          "quiet" => info.quiet?.to_s, "rss" => info.rss_kb), info)
      end

      def initialize(hash, info = nil)
        @hash = hash
        @info = info
      end

      def [](key) = @hash[key.to_s]

      def identity = self["identity"]

      def tag = self["tag"]

      def labels = self["labels"].to_a

      # Each capsule's queues where the record has capsules (Sidekiq 8.0.8
      # and later, Deckhand), else the record's own list.
      def queues
        caps = capsules
        caps ? caps.values.flat_map { |cap| cap["weights"].to_h.keys }.uniq : self["queues"]
      end

      # queue => weight across the capsules (a queue two capsules work: the
      # last one's), else the record's own.
      def weights
        caps = capsules
        caps ? caps.values.each_with_object({}) { |cap, all| all.update(cap["weights"].to_h) } : self["weights"]
      end

      # name => {"concurrency", "mode", "weights"}, or nil for a record without.
      def capsules = self["capsules"]

      def version = self["version"]

      def embedded? = self["embedded"] == true

      def stopping? = self["quiet"] == "true"

      # An embedded process takes its orders from the application it runs in.
      def quiet!
        raise "Can't quiet an embedded process" if embedded?
        signal("TSTP")
      end

      def stop!
        raise "Can't stop an embedded process" if embedded?
        signal("TERM")
      end

      # The process logs its threads' backtraces (a Deckhand server takes
      # TTIN from its signals list as from kill -TTIN).
      def dump_threads = signal("TTIN")

      # Whether this process leads a Sidekiq Enterprise fleet.
      def leader? = identity == Deckhand::Store::Records::ProcessRecord.sidekiq_leader(Deckhand.config.store)

      private

      def signal(name)
        config = Deckhand.config
        Deckhand::Store::Records::ProcessRecord.signal(config.store, identity, name)
      end
    end
  end

  # Sidekiq's name for one process of the set.
  Process = ProcessSet::Process
end
