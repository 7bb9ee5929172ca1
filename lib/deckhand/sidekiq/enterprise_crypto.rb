# frozen_string_literal: true

module Sidekiq
  # Defined when first named (Sidekiq.const_missing), for its Crypto setup
  # alone: `defined?(Sidekiq::Enterprise)` stays nil until then, and
  # Sidekiq.ent? answers nil, as without Sidekiq Enterprise.
  module Enterprise
    # Marks drop-in mode's stand-in (Sidekiq.ent? tells it from the gem).
    DECKHAND = true

    # Sidekiq Enterprise's encryption setup in drop-in mode: Deckhand's
    # encrypted arguments (docs/job-options.md), with the same key versions
    # (positive Integers) and the same key block (32 key bytes of a version).
    #
    #   Sidekiq::Enterprise::Crypto.enable(active_version: 2) do |version|
    #     File.binread("/etc/keys/secret.#{version}.key")
    #   end
    #
    # Deckhand's envelope is its own: a job Sidekiq Enterprise encrypted is
    # not readable by Deckhand, nor the reverse (drain such jobs before switching).
    module Crypto
      def self.enable(active_version:, &block)
        Deckhand.config.encryption(active_version: active_version, &block)
      end
    end
  end
end
