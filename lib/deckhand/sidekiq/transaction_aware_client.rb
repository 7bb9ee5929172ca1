# frozen_string_literal: true

require "securerandom"

module Sidekiq
  # Sidekiq's push-after-commit in drop-in mode: `Sidekiq.transactional_push!`
  # turns on Deckhand's (config.deckhand.push_after_commit, docs/rails.md),
  # so a job pushed inside a database transaction reaches Redis only once
  # every open transaction has committed, and never if one rolls back.
  #
  #   # config/initializers/sidekiq.rb
  #   Sidekiq.transactional_push!
  #
  # Sidekiq::TransactionAwareClient.new.push(item) defers one push that way.
  class TransactionAwareClient
    def initialize(pool: nil, config: nil)
      @client = Client.new(pool: pool, config: config)
      TransactionAwareClient.check!
    end

    def push(item)
      item = item.transform_keys(&:to_s)
      item["jid"] ||= SecureRandom.hex(12)
      ActiveRecord.after_all_transactions_commit { @client.push(item) }
      item["jid"]
    end

    def push_bulk(items) = @client.push_bulk(items)

    def self.check!
      return if defined?(::ActiveRecord) && ::ActiveRecord.respond_to?(:after_all_transactions_commit)
      raise Deckhand::DropIn::Unsupported.new("Sidekiq's transactional push without Active Record 7.2",
        "Deckhand defers pushes with ActiveRecord.after_all_transactions_commit (Active Record 7.2 or newer)")
    end
  end

  def self.transactional_push!
    TransactionAwareClient.check!
    require "deckhand/rails"
    Deckhand::Railtie::AfterCommit.install
    true
  end
end
