# frozen_string_literal: true

require "digest"
require_relative "job_record"

module Deckhand
  class API
    # A job waiting in a queue, with its place in line (0 runs next).
    #
    #   job = api.queue("default").jobs(page: 1).first
    #   job.rank        # => 0 (runs next)
    #   job.level       # => -5 (pushed with priority: -5) or nil
    #   api.queue("default").delete_job(job.jid, position: job.position, level: job.level)
    class QueuedJob < JobRecord
      # position: its place in its list; list: that list's name (a
      # partition's, for a partitioned queue; nil when not known); level:
      # the priority level whose list it waits in (docs/priority.md), nil
      # for the queue's own list; rank: its place in the queue's run order,
      # every list and level counted (0 runs next).
      attr_reader :position, :list, :level, :rank

      def initialize(raw, position, list = nil, level: nil, rank: position)
        super(raw)
        @position = position
        @list = list
        @level = level
        @rank = rank
      end

      # Names this exact entry (for one that is not a job and has no jid):
      # pass it to Queue#delete_entry.
      def digest = Digest::SHA256.hexdigest(raw)
    end
  end
end
