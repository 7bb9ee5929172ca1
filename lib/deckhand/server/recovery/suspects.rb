# frozen_string_literal: true

module Deckhand
  module Server
    module Recovery
      # Keeps track of suspects while they run. A suspect is a job recovered from
      # a process that died while it may have been running it: its queue's
      # recoveries hash counts it by jid (store/scripts/fetch/recover.lua). Each suspect
      # is recorded in Redis before it starts and forgotten when it settles, so
      # should this process die too, the reaper counts the suspects that were
      # running and no other.
      #
      # The fetcher learns of recoveries from each fetch: the reply carries the
      # queue's count version, read in the same atomic step as the pop, and a
      # changed version reloads that queue's counts before its jobs are handed
      # out. Jobs of queues without counts cost one Hash lookup.
      #
      # A suspect on its last chance (one more recovery makes it a poison pill)
      # runs alone among last-chance suspects in this process: the crash that
      # quarantines a job is then pinned on that job and not on another
      # last-chance job that happened to share the process.
      #
      #   suspects = Suspects.new(identity, store: store, logger: logger, max_recoveries: 3)
      #   suspects.observe("default", version)              # the fetcher, per lot
      #   count = suspects.count("default", jid)            # a processor, before running
      #   suspects.enter("default", jid, count) if count
      #   suspects.leave("default", jid, forget: true)      # once its outcome is settled
      class Suspects
        def initialize(identity, store:, logger:, max_recoveries:)
          @identity = identity
          @store = store
          @logger = logger
          @last_chance = max_recoveries - 1
          @lock = Mutex.new
          @free = ConditionVariable.new
          @alone = nil
          @counts = {}
          @versions = {}
        end

        # Reloads a queue's counts when their version changed. Raises a
        # Deckhand::RedisError when Redis cannot answer.
        def observe(queue, version)
          return if version == @versions.fetch(queue, nil)
          counts, version = Store::Inflight::Recoveries.counts(@store, queue)
          @lock.synchronize do
            counts.empty? ? @counts.delete(queue) : @counts[queue] = counts
            @versions[queue] = version
          end
        end

        # No queue has a job recovered (most of the time): #count is nil for every job.
        def none? = @counts.empty?

        # How many times the job was recovered, or nil for a job never recovered.
        def count(queue, jid)
          return nil if @counts.empty?
          counts = @counts[queue]
          counts && counts[jid]
        end

        def enter(queue, jid, count)
          if count >= @last_chance
            @lock.synchronize do
              @free.wait(@lock) while @alone
              @alone = jid
            end
          end
          record { Store::Inflight::Recoveries.running(@store, @identity, queue, jid) }
        end

        def leave(queue, jid, forget:)
          record { Store::Inflight::Recoveries.finished(@store, @identity, queue, jid, forget: forget) }
          @lock.synchronize do
            @counts[queue]&.delete(jid) if forget
            next unless @alone == jid
            @alone = nil
            @free.signal
          end
        end

        private

        # Without the record a crash goes uncounted (one more crash before the
        # quarantine), so it is worth a few tries; never worth not running the job.
        def record
          outage = Outage.new(@logger, "recording a recovered job")
          5.times do
            return yield
          rescue Deckhand::RedisError => e
            sleep outage.failed(e)
          end
          @logger.warn("could not record a recovered job's run in Redis; going on without it")
        end
      end
    end
  end
end
