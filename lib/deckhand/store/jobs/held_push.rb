# frozen_string_literal: true

require_relative "priority_pushes"

module Deckhand
  class Store
    module Jobs
      # The write of a push (Store::Jobs::Queues.push) and of the reliable-push
      # buffer (Client::PushBuffer), which must reach Redis exactly once: one
      # round trip, and a refusal does not raise. Redis runs every command of a
      # pipeline, so a refused one (WRONGTYPE on one queue, OOM reached halfway)
      # leaves the others written; the outcome says which part Redis did not
      # take, so only that part is written again. The jobs' own writes (LPUSH,
      # ZADD) go first and the set of queue names last: that set is
      # bookkeeping (the dashboard's list of queues, and in cluster mode where
      # the scheduler looks for sets), so its refusal leaves every job written
      # and is reported apart (`unlisted`), never as a part left. Replicas that
      # came short (push_replicas) do not make a push unwritten: it is in the
      # primary.
      #
      # The jobs of a fair queue's tenants (`fair`, a Config::FairQueues) are
      # filed in their tenant's turn by fair_push.lua, in the same round trip:
      # a held push written when Redis answers again waits its turn as it
      # would have, and one written twice (a lost reply) is added once while
      # it waits.
      #
      #   outcome = HeldPush.write(store, {"default" => [json]}, [], fair: config.fair_queues)
      #   outcome.left            # => nil when Redis took every job, else [queued, scheduled, scheduled_queues] it refused
      #   outcome.refusal         # => the first refusal of a job's write, a Deckhand::RedisError, or nil
      #   outcome.not_replicated  # => a Deckhand::NotReplicated naming the jobs it took, or nil
      #   outcome.unlisted        # => the refusal of the set of queue names (its jobs are written), or nil
      #   raise HeldPush.explained(outcome, queued, sets) if outcome.left   # the refusal, saying what was queued
      module HeldPush # :nodoc:
        # `doubt`: what a marked push (Store::MarkedPush) wrote without Redis
        # saying whether it ran it; none for a plain one. `unregistered`: the
        # refusal of a set of priority levels (its jobs are written), or nil.
        Outcome = Struct.new(:left, :refusal, :not_replicated, :unlisted, :doubt, :unregistered)

        NO_DOUBT = [].freeze

        # The outcome of a push Redis took whole.
        WRITTEN = Outcome.new(nil, nil, nil, nil, NO_DOUBT).freeze

        module_function

        # Raises Deckhand::ConnectionError when the round trip failed (nothing
        # known to be written, or a lost reply: see Client::PushBuffer).
        def write(store, queued, scheduled, scheduled_queues = nil, fair: nil)
          queued, tenants = Jobs::FairPushes.split(queued, fair)
          write_sets(store, queued, Jobs::Queues.scheduled_sets(store.layout, scheduled, scheduled_queues), scheduled_queues, tenants)
        end

        # As #write, with the scheduled jobs already grouped by set
        # (Queues.scheduled_sets) and the tenants' jobs split off
        # (FairPushes.split).
        def write_sets(store, queued, sets, scheduled_queues, tenants = Jobs::FairPushes::NO_TENANTS)
          keys = store.layout
          levels = Jobs::PriorityPushes::NONE
          queued, levels = Jobs::PriorityPushes.split(queued) if Jobs::PriorityPushes.any?(queued)
          commands = plan(keys, queued, sets, tenants, levels)
          replies, short = Connection::Durability.replies(store) { |pipe| commands.each { |command, _| pipe.call_v(command) } }
          return WRITTEN if short.nil? && replies.none?(RedisClient::Error) # the common case, told without a block per reply
          refused = error = unlisted = unregistered = nil
          replies.each_with_index do |reply, i|
            next unless reply.is_a?(RedisClient::Error)
            part = commands[i][1]
            next unlisted ||= reply unless part
            next unregistered ||= reply if part.first == :levels
            (refused ||= []) << part
            error ||= reply
          end
          return WRITTEN unless refused || short || unlisted || unregistered
          left = refused && left(keys, queued, sets, scheduled_queues, refused, tenants, levels)
          queued = joined(queued, tenants, levels)
          Outcome.new(left, error && store.refusal(error), short && not_replicated(store, queued, sets, refused || NO_DOUBT, short),
            unlisted && store.refusal(unlisted), NO_DOUBT, unregistered && store.refusal(unregistered))
        end

        # [command, part] in pipeline order; part names what the command
        # writes ([:queued, queue] or [:scheduled, set]), nil for the set of
        # queue names (writing it twice changes nothing). The jobs first, so
        # that nothing the set's refusal could stop comes after it.
        def plan(keys, queued, sets, tenants = {}, levels = {})
          commands = []
          names = []
          levels.each do |queue, by_level| # jobs with a priority: their levels named, then their lists (Jobs::PriorityPushes)
            names << Jobs::Queues.listed(keys, queue)
            commands << [["SADD", keys.priorities(queue), *by_level.keys], [:levels, queue]]
            by_level.each { |level, payloads| commands << [["LPUSH", keys.priority(queue, level), *payloads], [:priority, queue, level]] }
          end
          tenants.each do |queue, jobs|
            names << Jobs::Queues.listed(keys, queue)
            fair_keys = [keys.queue(queue), keys.fair_jobs(queue), keys.fair_tenants(queue)]
            commands << [["EVAL", Scripts::FairPush.source, 3, *fair_keys, *jobs.flatten], [:fair, queue]]
          end
          sets.each do |queue, entries|
            names << queue if keys.sets_per_queue? # how the scheduler finds the set
            commands << [["ZADD", keys.scheduled_set(queue), *entries], [:scheduled, queue]]
          end
          queued.each do |queue, payloads| # concat, where a splat would copy the payloads once more
            names << Jobs::Queues.listed(keys, queue)
            commands << [["LPUSH", keys.queue(queue)].concat(payloads), [:queued, queue]] unless payloads.empty?
          end
          names.uniq!
          commands << [names.unshift("SADD", keys::QUEUES), nil] unless names.empty? # the names become the command
          commands
        end

        # The refusal of a push that Redis did not take whole, with what it
        # queued: nothing (the push may be sent again as it is), or all but
        # the jobs of the queues named (only those may be sent again: the
        # others would run twice). sets: the scheduled sets #write_sets got.
        def explained(outcome, queued, sets)
          error = outcome.refusal
          left_queued, left_scheduled = outcome.left
          total = queued.sum { |_, payloads| payloads.size } + sets.sum { |_, entries| entries.size / 2 }
          missing = left_queued.sum { |_, payloads| payloads.size } + (left_scheduled.size / 2)
          note = if missing >= total
            "Nothing was queued: Redis took none of this push's #{jobs(total)}; push again once that is fixed"
          else
            where = left_queued.keys.map(&:inspect) + (left_scheduled.empty? ? [] : ["the schedule"])
            rest = total - missing
            "#{missing} of this push's #{jobs(total)} #{(missing == 1) ? "was" : "were"} not queued (#{where.join(", ")}) " \
              "and the other #{rest} #{(rest == 1) ? "was" : "were"}: push only the #{jobs(missing)} not queued again, " \
              "or the others run twice"
          end
          message = "#{error.message}. #{note}"
          error.is_a?(CommandError) ? CommandError.new(message, code: error.code, key: error.key) : error.class.new(message)
        end

        def jobs(count) = (count == 1) ? "1 job" : "#{count} jobs"

        def left(keys, queued, sets, scheduled_queues, refused, tenants = {}, levels = {})
          queues = []
          set_names = [] # plain mode's one set is nil
          fair = []
          prioritized = Hash.new { |hash, queue| hash[queue] = {} }
          refused.each do |kind, name, level|
            next if kind == :levels # bookkeeping: its jobs are written
            next prioritized[name][level] = levels.dig(name, level) if kind == :priority
            {queued: queues, fair: fair}.fetch(kind, set_names) << name
          end
          queued = joined(queued.slice(*queues), tenants.slice(*fair), prioritized)
          refused_sets = sets.slice(*set_names)
          scheduled = refused_sets.values.flatten(1)
          if !scheduled.empty? && keys.sets_per_queue?
            scheduled_queues = refused_sets.flat_map { |queue, entries| [queue] * (entries.size / 2) }
          end
          [queued, scheduled, scheduled.empty? ? nil : scheduled_queues]
        end

        # queued with the tenants' jobs and those with a priority back in
        # their queues' lists, as pushed.
        def joined(queued, tenants, levels = Jobs::PriorityPushes::NONE)
          queued = Jobs::PriorityPushes.joined(queued, levels)
          return queued if tenants.empty?
          queued.merge(tenants.transform_values { |jobs| jobs.map(&:last) }) { |_, plain, fair| plain + fair }
        end

        def not_replicated(store, queued, sets, refused, (acknowledged, failure))
          written = queued.reject { |queue, _| refused.any? { |kind, name| name == queue && kind != :scheduled && kind != :levels } }.values.flatten(1) +
            sets.reject { |queue, _| refused.include?([:scheduled, queue]) }.values.flatten(1).each_slice(2).map(&:last)
          return nil if written.empty?
          store.durability.not_replicated(store, acknowledged, written.filter_map { |raw| Jobs::Queues.jid_of(raw) }, failure)
        end
      end
    end
  end
end
