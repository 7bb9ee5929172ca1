# frozen_string_literal: true

require_relative "hooks"

module Deckhand
  # Whether this process has begun a graceful stop, for code that asks while
  # its job runs (Active Job's `queue_adapter.stopping?`, which job
  # continuations check between steps to stop early and resume later), and
  # whether it leads the fleet's periodic jobs.
  #
  #   Deckhand::Lifecycle.stopping?   # => false, until TERM reaches a swarm
  #                                   #    worker or an embedded server stops
  #   Deckhand.leader?                # => true in the one process that enqueues periodic jobs
  #   Deckhand::Lifecycle.on(:leader) { |leading| leading ? Singleton.start : Singleton.stop }
  #
  # The :leader hooks run on the periodic thread, with true when this process
  # becomes the leader and false when it stops being one; keep them short.
  # They are process-wide (Deckhand::Hooks keeps them), not a
  # configuration's: leadership and stopping belong to the process, and are
  # asked about where no configuration is at hand (Active Job's adapter,
  # Deckhand.leader?). A server's own events are Config::Events.
  module Lifecycle
    # The events #on takes.
    EVENTS = %i[leader].freeze

    @stopping = false
    @leader = false
    @command = false
    @hooks = Hooks.new(EVENTS)
    @title = nil

    class << self
      # What names this process in `ps` while it serves: nil (the title is
      # left as it is), or a callable given the server's launcher at each
      # heartbeat, returning the title (drop-in mode sets Sidekiq's,
      # Sidekiq::Launcher::PROCTITLES). A server embedded in another
      # process never changes its host's title.
      attr_accessor :title

      # True in a process of the `deckhand` command: lib/deckhand/cli.rb
      # says so when it loads (the Rails integration then shares Rails' log
      # with Deckhand's). Not reset: the process stays what it is.
      def command? = @command

      def command! = @command = true # :nodoc:

      # Whether this process has begun a graceful stop.
      def stopping? = @stopping

      def stopping! = @stopping = true # :nodoc:

      # Whether this process leads the fleet's periodic jobs.
      def leader? = @leader

      # Adds a hook for an event (EVENTS); returns the block, to pass to #off.
      def on(event, &block)
        raise ArgumentError, "unknown lifecycle event #{event.inspect}; known: #{EVENTS.join(", ")}" unless EVENTS.include?(event)
        raise ArgumentError, "give a block" unless block
        @hooks.add(event, block)
      end

      # Removes a hook #on returned.
      def off(event, block) = @hooks.remove(event, block)

      # Records a change of leadership and runs the :leader hooks; a hook
      # that raises is logged, never stops the others.
      def leader!(leading, logger: nil)
        return if @leader == leading
        @leader = leading
        @hooks.run(:leader, leading) do |error|
          logger&.error("a :leader lifecycle hook raised #{error.class}: #{error.message}")
        end
      end

      # A new process (or a test) starts afresh.
      def reset!
        @stopping = false
        @leader = false
      end
    end
  end
end
