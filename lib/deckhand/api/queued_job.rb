# frozen_string_literal: true

require_relative "job_record"

module Deckhand
  class API
    # A job waiting in a queue, with its place in line (0 runs next).
    #
    #   job = api.queue("default").jobs(page: 1).first
    #   job.position    # => 0
    #   api.queue("default").delete_job(job.jid, position: job.position)
    class QueuedJob < JobRecord
      attr_reader :position

      def initialize(raw, position)
        super(raw)
        @position = position
      end
    end
  end
end
