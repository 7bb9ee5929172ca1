# frozen_string_literal: true

module Deckhand
  class Workflow
    # What Workflow#add and #add_many return: the steps they added, by name
    # and jids, to name in a later step's `after:`.
    #
    #   fetch = flow.add(FetchFileJob, 7)
    #   fetch.jids    # => ["5f3c..."]
    #   fetch.name    # => "FetchFileJob"
    StepRef = Struct.new(:name, :jids) do
      def jid = jids.first

      def inspect = "#<Deckhand::Workflow::StepRef #{name} (#{jids.size} step#{"s" unless jids.size == 1})>"
    end
  end
end
