# frozen_string_literal: true

# `require "sidekiq/transaction_aware_client"` in drop-in mode: Sidekiq.transactional_push! and Sidekiq::TransactionAwareClient.
require "deckhand/sidekiq"
