# frozen_string_literal: true

# `require "active_job/queue_adapters/sidekiq_adapter"` in drop-in mode:
# what Rails' autoload of ActiveJob::QueueAdapters::SidekiqAdapter (for
# `queue_adapter = :sidekiq`) and the sidekiq gem's Rails integration
# require. Deckhand's adapter under Sidekiq's names, never Rails' own
# (which activates the sidekiq gem) nor the gem's.
require "deckhand/sidekiq"
require "deckhand/sidekiq/active_job"
