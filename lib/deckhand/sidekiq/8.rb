# frozen_string_literal: true

# Drop-in mode as Sidekiq 8.1, whatever the Ruby (Deckhand::DropIn::Version):
#
#   gem "deckhand", require: "deckhand/sidekiq/8"
require_relative "version"
Deckhand::DropIn.ask_version(8)
require_relative "../sidekiq"
