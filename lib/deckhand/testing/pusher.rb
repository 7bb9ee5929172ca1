# frozen_string_literal: true

module Deckhand
  module Testing
    # Takes every push while Deckhand::Testing is loaded (see Client.pusher) and
    # does what the calling thread's mode says: collect the jobs, run them, or
    # hand them to the pusher it replaced (Redis by default).
    class Pusher # :nodoc:
      def initialize(following, testing)
        @following = following
        @testing = testing
      end

      def call(queued, scheduled, config)
        case @testing.mode
        when :fake then each_job(queued, scheduled) { |job| @testing.queues.add(job) }
        when :inline then each_job(queued, scheduled) { |job| Runner.perform(job, @testing.server_middleware) }
        else @following ? @following.call(queued, scheduled, config) : Client.write(queued, scheduled, config)
        end
      end

      private

      # Decoded from the JSON a server would read. Scheduled jobs keep their
      # time as "at", which Redis holds in the schedule set's score.
      def each_job(queued, scheduled)
        queued.each_value { |payloads| payloads.each { |json| yield Payload.decode(json) } }
        scheduled.each_slice(2) { |at, json| yield Payload.decode(json).merge("at" => at) }
      end
    end
  end
end
