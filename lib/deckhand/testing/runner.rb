# frozen_string_literal: true

require_relative "../job_classes"

module Deckhand
  module Testing
    # Runs one decoded job in the calling thread, as a server's processor
    # would: a new instance, its jid and payload set, the testing server
    # middleware around #perform (a chunked class's perform_chunk, with a
    # chunk of one). Exceptions reach the caller, and a class
    # a server would refuse to run (JobClasses) raises NotAJobClass here.
    module Runner # :nodoc:
      module_function

      def perform(job, middleware)
        name = job.fetch("class")
        klass = JobClasses.check!(Object.const_get(name), name)
        instance = klass.new
        instance.jid = job["jid"] if instance.respond_to?(:jid=)
        instance.deckhand_payload = job if instance.respond_to?(:deckhand_payload=)
        args = Encryption.args(job, Deckhand.config.encryption_keys)
        middleware.invoke(instance, job, job["queue"]) do
          Chunk.of(klass) ? Chunk.perform_one(instance, args, job) : instance.perform(*args)
        end
      end
    end
  end
end
