# frozen_string_literal: true

require_relative "../../jobs/queues"
module Deckhand
  class Store
    module Scripts
      # requeue.lua: hands in-flight jobs of one process back to the front of
      # their queues, atomically.
      #
      #   requeue = Requeue.new(store, identity: "host:1:abc", queues: %w[default mail])
      #   requeue.all                                   # shutdown: everything unsettled
      #   requeue.some([[0, 42, 7], [0, 42, 6]], landed: [[1, raw]])   # these jobs, marked settled
      #   requeue.lots([[1, 43]])                       # whole lots of a lost fetch
      #
      # Each returns the number of jobs handed back.
      #
      # In cluster mode each queue's jobs go back with a call of their own (one
      # slot each), pipelined, and the queues that got jobs back are named in
      # the set of queues after.
      class Requeue < Script # :nodoc:
        lua "fetch/requeue", uses: ["lot", "throttle"]

        def initialize(store, identity:, queues:)
          super(store)
          @identity = identity
          @queues = queues
        end

        # Every unsettled job and every landing list. Reads the lot ids first;
        # a lot added in between (there is none: the fetchers have stopped)
        # would stay for the reaper.
        def all
          lots = Inflight.lots(@store, @identity, @queues).each_with_index.flat_map do |(_, ids), index|
            ids.map { |id| [index, id] }
          end
          hand_back("lots", "landing", lots, @queues.each_index.to_a)
        end

        # jobs: [queue index, lot id, position]; landed: [queue index, payload]
        # of jobs an idle waiter landed and handed out.
        def some(jobs, landed: [])
          calls = groups(jobs.map(&:first) | landed.map(&:first)).map do |members|
            local = members.each_with_index.to_h
            mine = jobs.select { |index, _, _| local.key?(index) }
            grouped = mine.group_by { |index, id, _| [index, id] }.sort_by { |(index, id), _| [-id.to_i, index] }
            lots = []
            argv = []
            grouped.each_with_index do |((index, id), list), n|
              lots << lot(index, id)
              positions = list.map(&:last).sort.reverse
              argv.push(n + 1, local[index] + 1, id, positions.size, *positions)
            end
            arrived = landed.select { |index, _| local.key?(index) }.flat_map { |index, raw| [local[index] + 1, raw] }
            [members, registry(members) + lots + throttle_keys(members),
              ["some", "-", *names(members), @identity, arrived.size / 2, *arrived, *argv]]
          end
          execute(calls)
        end

        # lots: [queue index, lot id].
        def lots(lots) = hand_back("lots", "-", lots.sort_by { |index, id| [id.to_i, index] }, lots.map(&:first).uniq)

        private

        # The queue indexes each call covers (Layout#script_calls): all in
        # one (plain mode), or one queue each (cluster mode) among those that
        # have work.
        def groups(indexes) = keys.script_calls(indexes, @queues.each_index.to_a)

        # KEYS[1..]: the set of queues where a script may write it (or else
        # the queue's own list: the script then leaves the set alone, and
        # #execute names the queues after), then per queue its in-flight
        # hash, landing list and list.
        def registry(members)
          first = keys.plain? ? keys::QUEUES : keys.queue(@queues[members.first])
          members.each_with_object([first]) do |index, list|
            queue = @queues[index]
            list.push(keys.inflight(@identity, queue), keys.landing(@identity, queue), keys.queue(queue))
          end
        end

        # The names the queues set gets: a partition's queue (Queues.listed).
        def names(members) = [members.size, *members.map { |index| Jobs::Queues.listed(keys, @queues[index]) }]

        def lot(index, id) = keys.lot(@identity, @queues[index], id)

        def throttle_keys(members) = members.map { |index| keys.throttle(@queues[index]) }

        def hand_back(mode, landing, lots, indexes)
          calls = groups(indexes).map do |members|
            local = members.each_with_index.to_h
            mine = lots.select { |index, _| local.key?(index) }
            [members, registry(members) + mine.map { |index, id| lot(index, id) } + throttle_keys(members),
              [mode, landing, *names(members), @identity, *mine.flat_map { |index, id| [local[index] + 1, id] }]]
          end
          execute(calls)
        end

        # Runs the calls ([queue indexes, keys, argv]); returns the number of
        # jobs handed back.
        def execute(calls)
          return 0 if calls.empty?
          return run(calls[0][1], calls[0][2]) if keys.plain?
          counts = @store.evalsha_many(self.class, calls.map { |_, list, argv| [list, argv] })
          back = calls.zip(counts).select { |_, count| count.positive? }.flat_map { |(members, _), _| members.map { |i| @queues[i] } }
          @store.call("SADD", keys::QUEUES, *back) unless back.empty?
          counts.sum
        end
      end
    end
  end
end
