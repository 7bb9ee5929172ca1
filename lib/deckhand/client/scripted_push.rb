# frozen_string_literal: true

module Deckhand
  class Client
    # What the pushes whose jobs each go through a script of their own share
    # (LockedPush: unique jobs with their locks; CollapsedPush: debounced and
    # deduplicated jobs with their records): their payloads, telling a
    # push_bulk's slice (Client::BulkPush) what the script wrote, and taking
    # their jobs out of a pusher's write. A subclass answers #marked?
    # (whether a payload is one of its jobs), #write_one (pushes one through
    # the script; false when the job turns out to need none) and #pushed?
    # (whether the script's reply for a job says it was pushed).
    #
    #   LockedPush.new(config).deferred({"default" => [json]}, [])   # => [{}, []]: the unique job pushed with its lock
    class ScriptedPush # :nodoc:
      def initialize(config)
        @config = config
      end

      # For Client.write behind a pusher (push_after_commit): takes this
      # push's jobs out of what is about to be written, pushes each through
      # the script, and returns the rest.
      def deferred(queued, scheduled)
        queued = queued.transform_values { |payloads| payloads.reject { |json| marked?(json) && write_one(json, nil) } }
        queued = queued.reject { |_, payloads| payloads.empty? }
        rest = []
        scheduled.each_slice(2) { |at, json| rest << at << json unless marked?(json) && write_one(json, at) }
        [queued, rest]
      end

      private

      # Each job's payload as the script writes it: "enqueued_at" stamped
      # now on those the block (given each one's index) says go onto their
      # queue at once.
      def payloads(jobs)
        now = Payload.now(@config.timestamps)
        jobs.each_with_index.map do |job, i|
          job["enqueued_at"] = now if yield(i)
          Payload.encode(job, max_bytes: @config.max_payload_bytes)
        end
      end

      # The script's replies for `jobs` (the block runs it), told to a
      # push_bulk's slice, if any: the jids it pushed, or none known when
      # the connection broke (the script may have run: no mark tells).
      def run_script(jobs)
        slice = Thread.current[SLICE]
        jids = jobs.map { |job| job["jid"] }
        begin
          replies = yield
        rescue ConnectionError
          slice&.scripted(jids, nil)
          raise
        end
        slice&.scripted(jids, jids.each_index.select { |i| pushed?(replies[i]) }.map { |i| jids[i] })
        replies
      end
    end
  end
end
