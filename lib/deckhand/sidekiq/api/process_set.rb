# frozen_string_literal: true

module Sidekiq
  # Sidekiq::ProcessSet in drop-in mode, on Deckhand::API::ProcessSet: the
  # live server processes, Deckhand's and Sidekiq's alike.
  #
  #   Sidekiq::ProcessSet.new.each { |process| process.quiet! if process["tag"] == "old" }
  #   Sidekiq::ProcessSet.new.total_concurrency
  class ProcessSet
    include Enumerable

    def initialize(_clean_plz = true)
      @set = Deckhand::API.new.processes
    end

    def each = @set.each { |info| yield Process.new(info) }

    def size = @set.size

    def total_concurrency = sum { |process| process["concurrency"].to_i }

    def total_rss_in_kb = sum { |process| process["rss"].to_i }

    alias_method :total_rss, :total_rss_in_kb

    # One process: its info fields by name (as Sidekiq's hash), and signals.
    class Process
      def initialize(info)
        @info = info
      end

      def [](key)
        case key.to_s
        when "identity" then @info.identity
        when "busy" then @info.busy
        when "quiet" then @info.quiet?.to_s
        when "rss" then @info.rss_kb
        else @info[key.to_s]
        end
      end

      def identity = @info.identity

      def tag = @info.tag

      def labels = @info.labels

      def queues = @info.queues

      def version = @info.version

      def stopping? = @info.quiet?

      def quiet! = @info.quiet!

      def stop! = @info.stop!

      def dump_threads
        raise Deckhand::DropIn::Unsupported.new("Sidekiq::Process#dump_threads", "send TTIN to the process to log its threads")
      end
    end
  end

  # Sidekiq's name for one process of the set.
  Process = ProcessSet::Process
end
