# frozen_string_literal: true

require_relative "server_internal"

module Sidekiq
  # Sidekiq's launcher, named in drop-in mode only so that code requiring
  # "sidekiq/launcher" loads: a Deckhand server is started by the `deckhand`
  # command, or inside another process by Sidekiq.configure_embed.
  #
  #   Sidekiq::Launcher.new(config)   # => Deckhand::DropIn::Unsupported
  class Launcher
    extend Deckhand::DropIn::ServerInternal

    unsupported "start a server with the `deckhand` command (it takes Sidekiq's flags and sidekiq.yml), or inside " \
      "another process with Sidekiq.configure_embed (docs/migrating-from-sidekiq.md)"
  end
end
