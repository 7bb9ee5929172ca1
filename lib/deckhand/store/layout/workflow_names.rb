# frozen_string_literal: true

module Deckhand
  class Store
    module Layout
      # The names of a workflow's keys under a layout's PREFIX: what
      # PlainWorkflows (plain mode) and ClusterWorkflows (one hash tag)
      # share. Each extends it.
      #
      #   Deckhand::Store::Layout::PlainWorkflows.state("Wf7x")    # => "deckhand:workflow:Wf7x:state"
      #   Deckhand::Store::Layout::ClusterWorkflows.state("Wf7x")  # => "{workflows}:workflow:Wf7x:state"
      module WorkflowNames # :nodoc:
        PARTS = %w[state on wait kids parents jobs results errors info names done].freeze

        # The placeholder field every workflow hash holds.
        PLACEHOLDER = "~"

        def meta(wid) = "#{self::PREFIX}#{wid}"

        PARTS.each { |part| define_method(part) { |wid| "#{self::PREFIX}#{wid}:#{part}" } }

        # Every key of the workflow, in the order its scripts declare them.
        def all(wid) = [meta(wid), *PARTS.map { |part| public_send(part, wid) }]

        # List: one job's return value, a single entry that waiters read with
        # a blocking move onto itself, so each of them sees it. Its own key,
        # in any slot: only Store::Features::JobResults touches it.
        def result(jid) = "#{self::RESULT}#{jid}"
      end
    end
  end
end
