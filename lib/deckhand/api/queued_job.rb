# frozen_string_literal: true

require "digest"
require_relative "job_record"

module Deckhand
  class API
    # A job waiting in a queue, with its place in line (0 runs next).
    #
    #   job = api.queue("default").jobs(page: 1).first
    #   job.position    # => 0
    #   api.queue("default").delete_job(job.jid, position: job.position)
    class QueuedJob < JobRecord
      # position: its place in its list; list: that list's name (a
      # partition's, for a partitioned queue; nil when not known).
      attr_reader :position, :list

      def initialize(raw, position, list = nil)
        super(raw)
        @position = position
        @list = list
      end

      # Names this exact entry (for one that is not a job and has no jid):
      # pass it to Queue#delete_entry.
      def digest = Digest::SHA256.hexdigest(raw)
    end
  end
end
