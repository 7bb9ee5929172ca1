# frozen_string_literal: true

require_relative "../errors"

module Deckhand
  module Bench
    # A scenario could not complete: a server exited, a report never came.
    # The runner records it, goes on with the next scenario and exits non-zero.
    class Failure < Deckhand::Error; end
  end
end
