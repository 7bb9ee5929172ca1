# frozen_string_literal: true

require_relative "periodic_tick"

module Deckhand
  class API
    # One periodic job as the leader stored it, with its state in Redis:
    # when it last ran (and which job), when it runs next, whether it is
    # paused; and the actions on it.
    #
    #   entry = api.periodic.find("nightly")
    #   entry.cron              # => "0 2 * * *"
    #   entry.timezone          # => "Europe/Paris"
    #   entry.next_at           # => Time of the next tick, as the leader computed it
    #   entry.last_at           # => Time of the last tick enqueued, or nil
    #   entry.last_jid          # => its job's jid
    #   entry.pause; entry.resume
    #   entry.enqueue_now       # => jid of a job pushed at once (the schedule is unchanged)
    #   entry.target_queue      # => "reports", where that job goes
    #   entry.history           # => [PeriodicTick, ...]: its last 20 ticks, newest first, with what became of each
    #   entry.history.first.then { |t| [t.at, t.state, t.jid, t.error] }   # => [Time, "failed", "b4a5...", "Net::ReadTimeout"]
    class PeriodicEntry
      attr_reader :name, :cron, :timezone, :klass, :queue, :args, :options

      # history: the entry's records as PeriodicEntries read them (one round
      # trip for every entry); read on first use when not given.
      def initialize(name, spec, state, config, history: nil)
        @name = name
        @cron = spec["cron"].to_s
        @timezone = spec["timezone"].to_s
        @klass = spec["class"].to_s
        @queue = spec["queue"]&.to_s # nil: the job class's own queue
        @args = spec["args"].is_a?(Array) ? spec["args"] : []
        @options = spec["options"].is_a?(Hash) ? spec["options"] : {} # job options over the class's own
        @state = state || {}
        @config = config
        @records = history
      end

      # Its last ticks (Store::Scripts::PeriodicHistory::KEPT), newest first:
      # enqueued, running, succeeded, failed (with the error's class) or
      # skipped (with why), as the leader and the servers recorded them.
      def history
        @records ||= Store::Scripts::PeriodicHistory.read(@config.store, [@name]).first
        @history ||= @records.map { |record| PeriodicTick.new(record) }
      end

      # Whether the entry is paused (#pause).
      def paused? = @state.key?("paused")

      # When the entry is next due (a Time, or nil).
      def next_at = time("next")

      # The scheduled time of the last tick enqueued.
      def last_at = time("last_tick")

      # The jid of the job the entry last pushed, or nil.
      def last_jid = @state["last_jid"]

      # The last job pushed by hand (enqueue_now), and when.
      def manual_jid = @state["manual_jid"]

      # When the entry was last pushed by hand from the dashboard (a Time, or nil).
      def manual_at = time("manual_at")

      # Stops the entry's ticks across the fleet until #resume.
      def pause = Store::Features::PeriodicState.pause(@config.store, @name)

      # Lets a paused entry tick again.
      def resume = Store::Features::PeriodicState.resume(@config.store, @name)

      # Pushes the entry's job now, as a push from this process would (see
      # Periodic::JobBuilder); returns its jid. The ticks are unchanged.
      def enqueue_now
        jid = Periodic::JobBuilder.new(@config).push_now(self) or return nil
        Store::Features::PeriodicState.record_manual(@config.store, @name, jid)
        jid
      end

      # The queue a job of this entry goes to (its class's own when the entry
      # names none and the class is loaded here).
      def target_queue = Periodic::JobBuilder.new(@config).queue_of(self)

      private

      def time(field)
        value = @state[field] or return nil
        seconds = Float(value, exception: false)
        seconds&.positive? ? Time.at(seconds) : nil
      end
    end
  end
end
