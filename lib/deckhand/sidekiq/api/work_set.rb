# frozen_string_literal: true

require "json"

module Sidekiq
  # Sidekiq::WorkSet (Sidekiq::Workers) in drop-in mode: what every
  # process's threads are running, from the processes' work records,
  # longest-running first.
  #
  #   Sidekiq::WorkSet.new.each { |process_id, thread_id, work| puts work.job.display_class }
  #   Sidekiq::WorkSet.new.find_work_by_jid(jid)&.run_at
  class WorkSet
    include Enumerable

    def initialize
      @store = Deckhand.config.store
    end

    def each(&block)
      return enum_for(:each) unless block
      identities = Deckhand::Store::Records::ProcessRecord.identities(@store)
      works = Deckhand::Store::Records::ProcessRecord.work(@store, identities)
      list = identities.zip(works).flat_map do |identity, records|
        records.map { |work| [identity, work.thread, Work.new(identity, work.thread, work)] }
      end
      list.sort_by { |_, _, work| work.run_at.to_f }.each(&block)
    end

    # Busy threads, as the processes' last heartbeats counted them.
    def size = Deckhand::API.new.stats.busy

    def find_work(jid) = find { |_, _, work| work.job.jid == jid }&.last

    alias_method :find_work_by_jid, :find_work
  end

  Workers = WorkSet

  # One running job: its process, thread, queue, start and payload.
  #
  #   work = Sidekiq::WorkSet.new.first.last
  #   work.job.display_class; work.queue; work.run_at; work.process_id
  class Work
    attr_reader :process_id, :thread_id

    def initialize(process_id, thread_id, work)
      @process_id = process_id
      @thread_id = thread_id
      @work = work
    end

    def queue = @work.queue

    def run_at = @work.run_at

    def payload = @work.payload

    def job = @job ||= JobRecord.new(payload.is_a?(Hash) ? payload : payload.to_s)

    # The work record's fields by name ("queue", "payload", "run_at").
    def [](key)
      case key.to_s
      when "queue" then queue
      when "payload" then payload
      when "run_at" then run_at&.to_i
      end
    end
  end
end
