# frozen_string_literal: true

require "deckhand/cli"

module Sidekiq
  # `require "sidekiq/cli"` in drop-in mode: the `deckhand` command line.
  # Code that checks `defined?(Sidekiq::CLI)` to know it runs in a server
  # process gets the same answer as Sidekiq.server?.
  CLI = Deckhand::CLI
end
