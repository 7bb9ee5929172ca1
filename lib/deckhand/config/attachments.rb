# frozen_string_literal: true

module Deckhand
  class Config
    # State another part keeps for a configuration (Operations' hub, a
    # drop-in job logger's choice), built by the block on the first ask and
    # held as long as the configuration is: a weak map keyed by the
    # configuration would let it be collected while the configuration lives.
    module Attachments
      # The block must not ask again.
      #
      #   config.attachment(:metrics_hub) { Operations::Hub.new(config) }
      def attachment(name)
        @attachments_lock.synchronize { @attachments.fetch(name) { @attachments[name] = yield } }
      end

      private

      def start_attachments
        @attachments = {}
        @attachments_lock = Mutex.new
      end
    end
  end
end
