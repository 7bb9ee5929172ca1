# frozen_string_literal: true

module Deckhand
  class Workflow
    # The keywords that end an args Array from Workflow.args: an Active Job
    # step's perform_later is given them as keywords (ActiveJobSteps). An
    # object of its own, not a Hash marked for keywords
    # (Hash.ruby2_keywords_hash): JRuby 9.4 does not always keep that mark
    # on its way through the calls between the add and perform_later.
    #
    #   Deckhand::Workflow.args(7, format: "csv").last.to_h   # => {format: "csv"}
    class Keywords
      # The keywords, a frozen Hash of Symbol keys.
      attr_reader :to_h

      def initialize(hash)
        @to_h = hash.dup.freeze
        freeze
      end

      # Equal when the keywords are: the same args built twice are equal.
      def ==(other) = other.is_a?(Keywords) && other.to_h == @to_h

      # As `**{format: "csv"}` reads in a failure or a log line.
      def inspect = "**#{@to_h.inspect}"
    end
  end
end
