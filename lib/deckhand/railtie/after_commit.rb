# frozen_string_literal: true

module Deckhand
  class Railtie < ::Rails::Railtie
    # The pusher for `config.deckhand.push_after_commit = true`: a job pushed
    # inside a database transaction is sent to Redis only when every open
    # transaction has committed, and never if one rolls back, so a job cannot
    # run before (or without) the rows it needs. Outside a transaction it is
    # sent at once. The jid is returned either way.
    class AfterCommit
      def self.install
        unless defined?(ActiveRecord) && ActiveRecord.respond_to?(:after_all_transactions_commit)
          raise ConfigError, "push_after_commit needs Active Record 7.2 or newer (ActiveRecord.after_all_transactions_commit); " \
            "load it (require \"active_record/railtie\") or turn the option off"
        end
        @installed ||= (Client.pusher = new(Client.pusher))
      end

      def initialize(following)
        @following = following
      end

      def call(queued, scheduled, config)
        ActiveRecord.after_all_transactions_commit do
          @following ? @following.call(queued, scheduled, config) : Client.write(queued, scheduled, config)
        end
      end
    end
  end
end
