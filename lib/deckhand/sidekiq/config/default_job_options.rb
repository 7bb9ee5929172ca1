# frozen_string_literal: true

module Deckhand
  module DropIn
    # What `Sidekiq.default_job_options` answers in drop-in mode: a Hash the
    # application may change in place, as Sidekiq's, which every job class
    # starts from (its own sidekiq_options on top).
    #
    #   Sidekiq.default_job_options["backtrace"] = 10
    #   Sidekiq.default_job_options.delete("client_class")
    #
    # Deckhand reads a frozen copy (Deckhand::Job::Options.defaults), so a
    # push never sees a Hash half changed: each change here makes a new copy.
    # The copy leaves out what Sidekiq never stores in a job (TRANSIENT): the
    # client class a push goes through is read from this Hash, by
    # Sidekiq::Job's pushes (ClientClass).
    class DefaultJobOptions < Hash
      TRANSIENT = %w[client_class].freeze

      # Hash's methods that change it in place.
      CHANGES = %i[[]= store delete delete_if reject! select! filter! keep_if clear replace merge! update shift
        compact! transform_keys! transform_values!].freeze

      @lock = Mutex.new

      class << self
        # The one instance, built from Deckhand's defaults when first asked for.
        def current = @current || @lock.synchronize { @current ||= self[Deckhand::Job::Options.defaults] }

        # Deckhand's copy of `options`: keys as strings, durations as seconds,
        # Deckhand's own frozen DEFAULTS when nothing was added to them.
        def publish(options)
          @lock.synchronize { Deckhand::Job::Options.replace_defaults(options.to_h.transform_keys(&:to_s).except(*TRANSIENT)) }
        end
      end

      CHANGES.each do |name|
        define_method(name) do |*args, &block|
          result = super(*args, &block)
          DefaultJobOptions.publish(self)
          result
        end
      end
    end
  end
end
