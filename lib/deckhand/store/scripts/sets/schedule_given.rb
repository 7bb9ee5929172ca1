# frozen_string_literal: true

require "json"
require_relative "schedule"

module Deckhand
  class Store
    module Scripts
      # Schedule, for a scheduler whose process has client middleware: each
      # due job is decoded and handed to `pass` before it moves, and what
      # pass answers is what happens to it. A Hash: that job is written to
      # its queue (the entry's own bytes when pass changed nothing, so its
      # arguments keep every byte); nil: the chain stopped it, and its entry
      # is removed (#dropped lists the jobs removed); :leave: the entry stays
      # in its set, due again at the next poll. schedule_given.lua writes
      # each payload only while its entry is still in its set, so a job
      # another scheduler moved meanwhile is not pushed twice. An entry that
      # is not a job, or a job pass made unwritable, goes to the dead set as
      # it was.
      #
      #   schedule = ScheduleGiven.new(store, queues: %w[default]) { |job| job.merge("seen" => true) }
      #   moved, corrupt, earliest = schedule.call(now: Time.now.to_f, limit: 100, stamp: 1732000000000)
      #   schedule.dropped # => the jobs pass stopped, their entries removed
      class ScheduleGiven < Schedule # :nodoc:
        lua "sets/schedule_given", uses: ["guard", "fair", "schedule_move"]

        attr_reader :dropped

        def initialize(store, queues: [], fair: nil, &pass)
          super(store, queues: queues, fair: fair)
          @pass = pass
        end

        def call(now:, limit:, stamp:)
          @given = {} # raw entry => [job to write, its payload]
          @stopped = []
          result = super
          @dropped = drop(@stopped)
          result
        end

        private

        # The due entries whose job pass answered with a job to write, or
        # that hold no job (the dead set takes those).
        def passed(due, stamp)
          due.map do |set_shard, entries|
            kept = entries.select do |raw|
              job = parse(raw)
              job ? pass(set_shard[0], raw, job, stamp) : true
            end
            [set_shard, kept]
          end
        end

        def pass(set, raw, job, stamp)
          result = @pass.call(job)
          return false if result == :leave
          unless result
            @stopped << [set, raw, job]
            return false
          end
          given = given(raw, result, stamp)
          @given[raw] = given if given
          true
        end

        # [job, payload], or nil when the job is no longer one a queue takes
        # or cannot be written as JSON: the entry goes to the dead set.
        def given(raw, job, stamp)
          return [job, stamped(raw, stamp)] if job == parse(raw)
          return nil unless job.is_a?(Hash)
          job["enqueued_at"] ||= stamp
          payload = JSON.generate(job)
          parse(payload) && [job, payload]
        rescue JSON::GeneratorError, EncodingError
          nil
        end

        # schedule_given.lua takes no stamp: the payloads carry it.
        def command(set_shard, entries, now, stamp)
          keys, argv = super
          [keys, argv.drop(1)]
        end

        # The job an entry holds as pass gave it; nil (the dead set) when
        # it held none or pass spoiled it.
        def job_of(raw) = @given[raw]&.first

        def written(raw, _job) = @given[raw][1]

        def payload_of(raw, _stamp) = @given[raw][1]

        # The stopped jobs whose entries this call removed (another
        # scheduler may have moved one first).
        def drop(stopped)
          return [] if stopped.empty?
          removed = @store.pipelined { |pipe| stopped.each { |set, raw, _| pipe.call("ZREM", set, raw) } }
          stopped.each_index.select { |i| removed[i] == 1 }.map { |i| stopped[i][2] }
        end
      end
    end
  end
end
