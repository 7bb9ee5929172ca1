# frozen_string_literal: true

require "securerandom"

module Sidekiq
  # Sidekiq's push-after-commit in drop-in mode. `Sidekiq.transactional_push!`
  # makes it the client class of every Sidekiq::Job (Sidekiq.default_job_options'
  # "client_class"), so a job pushed inside a database transaction reaches
  # Redis once every open transaction has committed, and never if one rolls
  # back. A job class may opt out, or in on its own:
  #
  #   # config/initializers/sidekiq.rb
  #   Sidekiq.transactional_push!
  #
  #   class AuditJob
  #     include Sidekiq::Job
  #     sidekiq_options client_class: Sidekiq::Client   # pushed at once, even in a transaction
  #   end
  #
  # Deckhand's own config.deckhand.push_after_commit (docs/rails.md) defers
  # every push of the process, Active Job's included; this defers those of
  # the Sidekiq::Job classes that use it, as Sidekiq does.
  class TransactionAwareClient
    def initialize(pool: nil, config: nil)
      TransactionAwareClient.check!
      @client = Client.new(pool: pool, config: config)
    end

    # Returns the jid at once, so the transaction can store it.
    def push(item)
      # Inside a batch's jobs block the batch collects the job now, as
      # Sidekiq pushes a batch's jobs at once.
      return @client.push(item) if Thread.current[Deckhand::Client::COLLECTOR]
      item = item.transform_keys(&:to_s)
      item["jid"] ||= SecureRandom.hex(12)
      ActiveRecord.after_all_transactions_commit { @client.push(item) }
      item["jid"]
    end

    # At once, as in Sidekiq: a bulk push's jobs are not held in memory
    # until the commit.
    def push_bulk(items) = @client.push_bulk(items)

    def self.check!
      return if defined?(::ActiveRecord) && ::ActiveRecord.respond_to?(:after_all_transactions_commit)
      raise Deckhand::DropIn::Unsupported.new("Sidekiq's transactional push without Active Record 7.2",
        "Deckhand defers pushes with ActiveRecord.after_all_transactions_commit (Active Record 7.2 or newer)")
    end
  end

  def self.transactional_push!
    TransactionAwareClient.check!
    default_job_options[Deckhand::DropIn::ClientClass::KEY] = TransactionAwareClient
    true
  end
end
