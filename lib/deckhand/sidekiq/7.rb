# frozen_string_literal: true

# Drop-in mode as Sidekiq 7.3, whatever the Ruby (Deckhand::DropIn::Version):
#
#   gem "deckhand", require: "deckhand/sidekiq/7"
require_relative "version"
Deckhand::DropIn.ask_version(7)
require_relative "../sidekiq"
