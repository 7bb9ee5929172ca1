# frozen_string_literal: true

module Deckhand
  class Store
    # Every Redis key Deckhand touches, in one place. The unprefixed names are
    # Sidekiq's layout, which Deckhand shares so both can run against one Redis;
    # the `deckhand:` ones are Deckhand's own bookkeeping.
    module Keys
      QUEUES = "queues"
      SCHEDULE = "schedule"
      RETRY = "retry"
      DEAD = "dead"
      PROCESSES = "processes"
      PROCESSED = "stat:processed"
      FAILED = "stat:failed"

      # Hash of identity => JSON describing each process that owns in-flight jobs.
      # Unlike the process record it has no TTL: it is how a dead process is found.
      OWNERS = "deckhand:owners"

      # Short lock (SET NX PX) that lets one process's reaper act at a time.
      REAPER_LOCK = "deckhand:reaper:lock"

      # Hash of "<identity>|<in-flight field>" => payload: poison pills taken out of
      # a dead process's in-flight record, waiting to be written to the dead set.
      POISON = "deckhand:poison"

      module_function

      def queue(name) = "queue:#{name}"

      def process(identity) = identity

      def work(identity) = "#{identity}:work"

      def signals(identity) = "#{identity}-signals"

      # Hash of "<seq>:<queue>" => payload: the jobs a process has taken and not
      # yet finished. A field is deleted only once the job's outcome is in Redis.
      def inflight(identity) = "deckhand:inflight:#{identity}"

      # List a blocking fetch moves a job into when the process was idle; the next
      # fetch files it into the in-flight hash. Part of the in-flight record.
      def landing(identity, queue) = "deckhand:landing:#{identity}:#{queue}"

      def daily(stat, date) = "#{stat}:#{date}"

      # How many times a job was recovered from a process that died while it may
      # have been running it. Expires: it only needs to outlive a crash loop.
      def recoveries(jid) = "deckhand:recoveries:#{jid}"

      # Set of the in-flight fields of the suspects (jobs recovered before) this
      # process is running now: what pins its next crash on the right jobs.
      def suspects(identity) = "deckhand:suspects:#{identity}"
    end
  end
end
