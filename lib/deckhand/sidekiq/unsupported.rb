# frozen_string_literal: true

module Deckhand
  module DropIn
    # Raised in drop-in mode by a Sidekiq API Deckhand does not provide, where
    # the application calls it (at boot, for configuration), never ignored.
    #
    #   Sidekiq::Client.via(pool) { ... }
    #   # => Deckhand::DropIn::Unsupported: Sidekiq::Client.via is not supported in Deckhand's
    #   #    drop-in mode: ... See docs/migrating-from-sidekiq.md
    class Unsupported < Deckhand::Error
      def initialize(api, hint = nil)
        super("#{api} is not supported in Deckhand's drop-in mode#{": #{hint}" if hint}. See docs/migrating-from-sidekiq.md")
      end
    end
  end
end
