# frozen_string_literal: true

require_relative "../store/jobs/cancellations"
require_relative "../store/jobs/priority_levels"
require_relative "../store/jobs/held_search"

module Deckhand
  class Client
    # Cancels one job by its jid, wherever it is (docs/cancelling.md). The
    # job's cancel mark is set first, then it is looked for where a job goes
    # next, in the order a job travels: the schedule and retry sets, the
    # queues (each partition, and each one's priority levels), the jobs of
    # paused classes held aside, the jobs running, the dead set. A waiting job
    # is taken out and recorded as cancelled in one script; a running one is
    # left to its process, which reads the mark with its next heartbeat.
    # The cancel handlers (Config#on_cancelled) hear of a waiting job just
    # before it is taken.
    #
    #   JobCancel.new(config).call(jid)              # => :removed_from_queue
    #   JobCancel.new(config).call(jid, grace: 30)   # => :cancelling_running
    class JobCancel # :nodoc:
      # What #call returns.
      OUTCOMES = %i[removed_from_schedule removed_from_retries removed_from_queue cancelling_running removed_from_dead not_found].freeze
      # A job that moves on between being found and taken is looked for again.
      ATTEMPTS = 3
      SETS = [[:scheduled_set, "schedule", :removed_from_schedule], [:retry_set, "retry", :removed_from_retries]].freeze
      private_constant :SETS

      def initialize(config)
        @config = config
        @store = config.store
      end

      # grace: seconds a running job has to stop by itself before it is
      # interrupted (nil: the server's cancel_grace).
      def call(jid, grace: nil)
        check!(jid, grace)
        Store::Jobs::Cancellations.mark(@store, jid, grace: grace, at: @store.clock.now.round(3))
        ATTEMPTS.times do
          outcome = look(jid)
          return outcome if outcome
        end
        :not_found
      end

      private

      # The outcome of one look through every place; nil when the job was
      # found and moved on before it could be taken.
      def look(jid)
        queues = Store::Jobs::Queues.names(@store)
        SETS.each do |kind, where, outcome|
          @store.layout.set_keys(kind, queues).each do |_, key|
            taken = take(key, jid, where, :find_in_set)
            return taken && outcome unless taken.nil?
          end
        end
        lists = queues.flat_map { |queue| @config.partitions.names(queue) }.uniq
        levels = Store::Jobs::PriorityLevels.levels(@store, lists) # a list's priority levels (docs/priority.md)
        lists.each do |list|
          [@store.layout.queue(list), *levels.fetch(list).map { |level| @store.layout.priority(list, level) }].each do |key|
            taken = take(key, jid, "queue", :find_in_list)
            return taken && :removed_from_queue unless taken.nil?
          end
        end
        # A job of a paused class, fetched and held aside (docs/web.md): it
        # waits in its queue all the same, and leaves it as a queued job does.
        Store::Jobs::HeldSearch.sets(@store, lists).each do |_, _, key|
          taken = take(key, jid, "held", :find_in_set)
          return taken && :removed_from_queue unless taken.nil?
        end
        return :cancelling_running if Store::Jobs::Cancellations.running(@store, jid)
        @store.layout.set_keys(:dead_set, queues).each do |_, key|
          taken = take(key, jid, "dead", :find_in_set)
          return taken && :removed_from_dead unless taken.nil?
        end
        :not_found
      end

      # nil: not in `key`; true: taken; false: found, gone before the take.
      def take(key, jid, where, finder)
        raw = Store::Jobs::Cancellations.public_send(finder, @store, key, jid) or return nil
        job = JSON.parse(raw)
        @config.cancel_handlers.each { |handler| handler.call(job, where) }
        Store::Jobs::Cancellations.take(@store, key, raw, record(job, jid, where))
      end

      def record(job, jid, where)
        {"jid" => jid, "class" => job["wrapped"] || job["class"], "queue" => job["queue"], "where" => where,
         "at" => @store.clock.now.round(3)}
      end

      def check!(jid, grace)
        unless jid.is_a?(String) && !jid.strip.empty?
          raise ArgumentError, "cancel needs a job's jid (a String, like \"b4a577edbccf1d805744efa9\"), got #{jid.inspect}"
        end
        return if grace.nil? || (grace.is_a?(Numeric) && grace >= 0)
        raise ArgumentError, "cancel's grace: must be a number of seconds (0 or more) or nil for the server's cancel_grace, got #{grace.inspect}"
      end
    end
  end
end
