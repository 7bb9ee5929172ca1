# frozen_string_literal: true

module DeckhandBench
  # A scenario could not complete: a server exited, a report never came.
  # The runner records it, goes on with the next scenario and exits non-zero.
  class Failure < StandardError; end
end
