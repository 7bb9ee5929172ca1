# frozen_string_literal: true

module Deckhand
  module Testing
    # Runs one decoded job in the calling thread, as a server's processor
    # would: a new instance, its jid and payload set, the testing server
    # middleware around #perform. Exceptions reach the caller.
    module Runner
      module_function

      def perform(job, middleware)
        klass = Object.const_get(job.fetch("class"))
        instance = klass.new
        instance.jid = job["jid"] if instance.respond_to?(:jid=)
        instance.deckhand_payload = job if instance.respond_to?(:deckhand_payload=)
        args = Encryption.args(job, Deckhand.config.encryption_keys)
        middleware.invoke(instance, job, job["queue"]) { instance.perform(*args) }
      end
    end
  end
end
