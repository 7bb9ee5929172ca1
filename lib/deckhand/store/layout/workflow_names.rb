# frozen_string_literal: true

module Deckhand
  class Store
    module Layout
      # The names of a workflow's keys under a layout's PREFIX, and those
      # both modes name alike: what PlainWorkflows (plain mode) and
      # ClusterWorkflows (one hash tag) share. Each includes it for its
      # constants (keys::PARTS) and extends it for its names (keys.state).
      #
      #   Deckhand::Store::Layout::PlainWorkflows.state("Wf7x")    # => "deckhand:workflow:Wf7x:state"
      #   Deckhand::Store::Layout::ClusterWorkflows.state("Wf7x")  # => "{workflows}:workflow:Wf7x:state"
      module WorkflowNames # :nodoc:
        PARTS = %w[state on wait kids parents jobs results errors info names runs done].freeze

        # The placeholder field every workflow hash holds.
        PLACEHOLDER = "~"

        # The prefix of the fleet's counters' fields (COUNTS) that count
        # ends, by state.
        ENDED = "ended:"

        # A job's kept return value is a key of its own, read and written
        # alone, in either mode: in cluster mode it stays out of the
        # {workflows} slot, so results spread over the shards.
        RESULT = "deckhand:result:"

        def meta(wid) = "#{self::PREFIX}#{wid}"

        PARTS.each { |part| define_method(part) { |wid| "#{self::PREFIX}#{wid}:#{part}" } }

        # Every key of the workflow, in the order its scripts declare them.
        def all(wid) = [meta(wid), *PARTS.map { |part| public_send(part, wid) }]

        # List: one job's return value, a single entry that waiters read with
        # a blocking move onto itself, so each of them sees it. Its own key,
        # in any slot: only Store::Features::JobResults touches it.
        def result(jid) = "#{RESULT}#{jid}"
      end
    end
  end
end
