# frozen_string_literal: true

module Deckhand
  module DropIn
    # Sidekiq raises ArgumentError for a job it cannot push (bad args, a
    # missing class, an empty queue name); applications written for it rescue
    # that. Deckhand's InvalidJob, with its message, becomes one here.
    #
    #   DropIn.argument_errors { client.push(item) }
    def self.argument_errors
      yield
    rescue Deckhand::InvalidJob => e
      raise ArgumentError, e.message
    end
  end
end
