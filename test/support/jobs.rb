# frozen_string_literal: true

module Deckhand
  # Records what test jobs did, thread-safely.
  module TestJobs
    @lock = Mutex.new
    @runs = []

    class << self
      def reset = @lock.synchronize { @runs = [] }

      def record(entry) = @lock.synchronize { @runs << entry }

      def runs = @lock.synchronize { @runs.dup }
    end
  end
end

class RecordJob
  include Deckhand::Job

  def perform(*args)
    Deckhand::TestJobs.record([jid, args])
  end
end

class FailJob
  include Deckhand::Job

  deckhand_options retry: 2

  def perform(*args)
    Deckhand::TestJobs.record([jid, args])
    raise ArgumentError, "failed on purpose: #{args.inspect}"
  end
end

class SleepJob
  include Deckhand::Job

  def perform(seconds)
    Deckhand::TestJobs.record([jid, :start])
    sleep seconds
    Deckhand::TestJobs.record([jid, :finish])
  end
end
