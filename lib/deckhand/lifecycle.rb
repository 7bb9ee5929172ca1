# frozen_string_literal: true

module Deckhand
  # Whether this process has begun a graceful stop, for code that asks while
  # its job runs (Active Job's `queue_adapter.stopping?`, which job
  # continuations check between steps to stop early and resume later).
  #
  #   Deckhand::Lifecycle.stopping?   # => false, until TERM reaches a swarm
  #                                   #    worker or an embedded server stops
  module Lifecycle
    @stopping = false

    class << self
      def stopping? = @stopping

      def stopping! = @stopping = true

      # A new process (or a test) starts afresh.
      def reset! = @stopping = false
    end
  end
end
