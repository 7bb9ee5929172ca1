# frozen_string_literal: true

module Deckhand
  class API
    # Tells the death handlers, then the final-failure handlers (with
    # :dead), about jobs killed by hand, as the server does for jobs that ran
    # out of retries: each handler gets the job's Hash and a KilledByHand
    # error. They run in the process that killed the jobs (the dashboard's, a
    # console), so that process needs the handlers: batches' comes with
    # `require "deckhand/batch"`, workflows' with `require
    # "deckhand/workflow"`. A handler that raises is logged; the others
    # still run.
    #
    #   DeathNotice.new(config, :retries).deliver(entries)
    class DeathNotice
      def initialize(config, set_name)
        @config = config
        @set_name = set_name
      end

      # error: the error each handler gets (a KilledByHand naming the set by default).
      def deliver(entries, error: nil)
        handlers = @config.death_handlers
        finals = @config.final_handlers
        return if handlers.empty? && finals.empty?
        trace = caller
        entries.each do |entry|
          next if entry.corrupt? # not a job: nothing a handler could use
          told = error || KilledByHand.new("#{entry.display_class} #{entry.jid} was killed by hand: moved from the #{@set_name} set to the dead set")
          told.set_backtrace(trace) unless told.backtrace
          handlers.each { |handler| call(handler, entry.item, told) }
          finals.each { |handler| call(handler, entry.item, told, :dead) }
        end
      end

      private

      def call(handler, job, error, *outcome)
        handler.call(job, error, *outcome)
      rescue => e
        @config.logger.error("death handler raised #{e.class}: #{e.message} (job #{job["jid"]} killed by hand)")
      end
    end
  end
end
