# frozen_string_literal: true

require_relative "../store/features/iterations"
require_relative "../iterable_job/run_history"
require_relative "iteration_run"

module Deckhand
  class API
    # The saved progress of an iterable job (Deckhand::IterableJob or
    # Sidekiq::IterableJob), as of its last save (every few seconds).
    #
    #   api.iterations([jid])[jid]&.cursor   # => 4000 (the next item's), or nil when not iterable
    #   api.iterations([jid])[jid].runs      # => [API::IterationRun, ...] its last runs, oldest first
    #   api.iterations([jid])[jid].interruptions # => 2
    class Iteration
      attr_reader :executions, :cursor, :runtime, :steps, :runs

      # jid => Iteration, for those of `jids` that have saved progress.
      def self.for_jids(config, jids)
        jids = jids.uniq
        jids.zip(Store::Features::Iterations.load_many(config.store, jids)).each_with_object({}) do |(jid, fields), found|
          found[jid] = new(fields) unless fields.nil? || fields.empty?
        end
      end

      def initialize(fields)
        @executions = fields["ex"].to_i
        @cursor = (fields["c"].nil? || fields["c"].empty?) ? nil : IterationRun.cursor(fields["c"])
        @runtime = fields["rt"].to_f
        @steps = fields["dh_steps"]&.to_i
        @cancelled = !fields["cancelled"].nil?
        @runs = IterableJob::RunHistory.parse(fields["dh_runs"]).runs.map { |run| IterationRun.new(run) }
      end

      # Whether the job was cancelled.
      def cancelled? = @cancelled

      # Runs recorded as interrupted (the history keeps the last 20).
      def interruptions = @runs.size
    end
  end
end
