# frozen_string_literal: true

require_relative "process_info"
require_relative "running_job"

module Deckhand
  class API
    # The live server processes and what their threads are running.
    #
    #   set = api.processes
    #   set.each { |p| puts "#{p.hostname} #{p.busy}/#{p.concurrency}" }
    #   set.running     # => [RunningJob, ...]
    #   set.quiet_all!
    class ProcessSet
      include Enumerable

      def initialize(config)
        @store = config.store
        @processes = load
      end

      # Yields each live ProcessInfo.
      def each(&) = @processes.each(&)

      # How many processes are live.
      def size = @processes.size

      # The process of that identity, or nil.
      def find(identity) = @processes.find { |process| process.identity == identity }

      # The queues live processes work (stale records left out).
      def worked_queues = reject(&:stale?).flat_map(&:queues).uniq

      # Asks every live process to quiet (ProcessInfo#quiet!).
      def quiet_all! = each(&:quiet!)

      # Asks every live process to stop (ProcessInfo#stop!).
      def stop_all! = each(&:stop!)

      # Signals sent and not yet picked up, per identity: {"host:1:ab" => ["TSTP"], ...}.
      # A quiet takes effect on the process's next heartbeat; until then the
      # dashboard says it was sent.
      def pending_signals
        identities = @processes.map(&:identity)
        identities.zip(Store::Records::ProcessRecord.pending_signals(@store, identities)).to_h
      end

      # The jobs running now in every process, longest-running first.
      def running
        return [] if @processes.empty?
        works = Store::Records::ProcessRecord.work(@store, @processes.map(&:identity))
        list = @processes.zip(works).flat_map do |process, work|
          work.map { |running| RunningJob.new(process.identity, running) }
        end
        list.sort_by { |job| job.run_at.to_f }
      end

      private

      # A process whose record expired (it died without cleaning up) is dropped
      # from the set here, as Sidekiq does; a live one re-adds itself each beat.
      def load
        identities = Store::Records::ProcessRecord.identities(@store)
        entries = Store::Records::ProcessRecord.read(@store, identities)
        Store::Records::ProcessRecord.forget(@store, identities.zip(entries).filter_map { |identity, entry| identity unless entry })
        entries.compact.map { |entry| ProcessInfo.new(entry, store: @store) }
      end
    end
  end
end
