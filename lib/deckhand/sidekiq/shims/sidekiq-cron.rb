# frozen_string_literal: true

# Drop-in mode answers `require "sidekiq-cron"` (Bundler.require of its gem): the
# plugin cannot run on Deckhand, so it stops the boot saying what to do.
require "deckhand/sidekiq/refusal"
raise LoadError, Deckhand::DropInRefusal.scheduler("sidekiq-cron")
