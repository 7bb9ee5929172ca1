# frozen_string_literal: true

require_relative "stats"

module DeckhandBench
  # Every sample the scenarios measured, per figure and system, in the order
  # the figures were declared; medians are what the table shows.
  #
  #   results = Results.new
  #   results.declare(figure)
  #   results.add(:noop_10, "deckhand", 21_000.0)
  #   results.median(:noop_10, "deckhand")   # => 21000.0
  #   results.ratio(:noop_10)                # => Deckhand's median / Sidekiq's
  class Results
    attr_reader :figures, :failures, :notes

    def initialize
      @figures = {}
      @samples = Hash.new { |h, key| h[key] = Hash.new { |hh, system| hh[system] = [] } }
      @failures = []
      @notes = {}
    end

    def declare(figure) = @figures[figure.key] ||= figure

    def add(key, system, value) = @samples[key][system] << value

    def samples(key, system) = @samples.dig(key, system) || []

    def median(key, system = "deckhand") = Stats.median(samples(key, system))

    # Deckhand's median over Sidekiq's, nil when either is missing.
    def ratio(key)
      ours = median(key, "deckhand")
      theirs = median(key, "sidekiq")
      return nil unless ours && theirs&.positive?
      ours.fdiv(theirs)
    end

    def fail(scenario, message) = @failures << [scenario, message]

    # A line for the Markdown report's notes (setups, breakdowns); the
    # last round's line under a key wins.
    def note(key, text) = @notes[key] = text

    def failed? = !@failures.empty?
  end
end
