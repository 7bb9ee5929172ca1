# frozen_string_literal: true

module Deckhand
  class Batch
    # What a Batch::Writer's write did with each of its jobs, told in the
    # error it raises when a slice did not go whole (Deckhand::PushIncomplete):
    # the slices before it are queued, the jobs after it are not, and of its
    # own, what Redis said. A slice Redis did not say it ran is in doubt,
    # with the mark to ask about (#recheck).
    #
    #   fate = SliceFate.new(config, collector.groups)
    #   fate.written(slice.jids)                         # as each slice goes
    #   raise fate.incomplete(error, nil, slice)          # nothing of it written
    #   raise fate.incomplete(error, mark, slice)         # its script's reply lost: in doubt
    #   raise fate.incomplete(error, outcome, slice)      # cluster mode: its marked push's outcome
    class SliceFate # :nodoc:
      def initialize(config, groups)
        @config = config
        @pushed = []
        # jid => the job as Client.push takes it, in write order.
        @jobs = {}
        groups.each do |group|
          group.jobs.each_with_index do |job, i|
            at = group.ats[i]
            @jobs[job["jid"]] = at ? job.except("enqueued_at").merge("at" => at) : job.except("enqueued_at")
          end
        end
      end

      def written(jids) = @pushed.concat(jids)

      # The error that stopped `slice`, carrying PushIncomplete.
      def incomplete(error, detail, slice)
        doubts = doubts(detail, slice)
        unsure = doubts.flat_map(&:last)
        unwritten = (detail.is_a?(Store::Jobs::HeldPush::Outcome) && detail.left) ? jids_of(*detail.left.first(2)) : []
        landed = detail.is_a?(Store::Jobs::HeldPush::Outcome) ? slice.jids - unwritten - unsure : []
        after = @jobs.keys.drop(@jobs.keys.index(slice.jids.last) + 1)
        since = Monotonic.now
        checker = doubts.empty? ? nil : ->(_) { recheck(doubts, since) }
        PushIncomplete.attach(error, pushed: @pushed + landed, unpushed: jobs(slice.jids - landed - unsure) + jobs(after),
          in_doubt: jobs(unsure), total: @jobs.size, recheck: checker)
      end

      private

      # [[what to ask, jids], ...]: the script's mark, or a marked push's doubts.
      def doubts(detail, slice)
        case detail
        when String then [[detail, slice.jids]]
        when Store::Jobs::HeldPush::Outcome then detail.doubt.map { |doubt| [doubt, jids_of(*doubt.push.first(2))] }
        else []
        end
      end

      # PushIncomplete#recheck: [jobs Redis holds, jobs it does not] once it
      # answers about each doubt, else nil (and nil for good once a mark has
      # expired: Redis can no longer tell).
      def recheck(doubts, since)
        return nil if Monotonic.now - since > Store::PushMarks::TTL
        store = @config.store
        landed, missing = [], []
        doubts.each do |asked, jids|
          lost = if asked.is_a?(String)
            answer = Store::PushMarks.ask(store, asked, 0) or return nil
            answer.start_with?(Store::Scripts::PushMark::WRITTEN) ? [] : jids
          else
            refused = Store::PushMarks.recheck(store, asked) or return nil
            jids_of(*asked.push(refused.keys.compact).first(2))
          end
          landed.concat(jids - lost)
          missing.concat(lost)
        end
        [jobs(landed), jobs(missing)]
      end

      def jobs(jids) = jids.map { |jid| @jobs.fetch(jid) }

      def jids_of(queued, scheduled)
        payloads = queued.values.flatten(1) + scheduled.each_slice(2).map(&:last)
        payloads.filter_map { |json| Store::Jobs::Queues.jid_of(json) }
      end
    end
  end
end
