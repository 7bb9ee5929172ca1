# frozen_string_literal: true

module Deckhand
  module DropIn
    # Sidekiq's `client_class` option: the class a Sidekiq::Job's pushes go
    # through, as Sidekiq picks it (the thread's :sidekiq_client_class, then
    # the job class's option, then Sidekiq.default_job_options'). It chooses
    # how a job is pushed and is never stored in the job.
    #
    #   Sidekiq.transactional_push!                          # every job waits for the commit
    #   class AuditJob
    #     include Sidekiq::Job
    #     sidekiq_options client_class: Sidekiq::Client      # but this one is pushed at once
    #   end
    module ClientClass
      KEY = "client_class"
      IVAR = :@sidekiq_client_class

      # The class's own option, its nearest superclass's, or the default's (nil: none).
      def self.of(klass)
        while klass.respond_to?(:get_sidekiq_options)
          return klass.instance_variable_get(IVAR) if klass.instance_variable_defined?(IVAR)
          klass = klass.superclass
        end
        Sidekiq.default_job_options[KEY]
      end

      # The class a push of `klass` goes through, or nil for drop-in mode's
      # own push (Sidekiq::Client's). `chosen` is the push's set(client_class:).
      def self.for_push(klass, chosen = nil)
        client = Thread.current[:sidekiq_client_class] || chosen || of(klass)
        client unless client.nil? || client.equal?(Sidekiq::Client)
      end
    end
  end
end
