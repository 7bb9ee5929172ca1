# frozen_string_literal: true

require_relative "../client/client_class"

module Sidekiq
  module Job
    # Sidekiq's job declarations without the push methods, for Active Job
    # classes: drop-in mode includes it into ActiveJob::Base, as the sidekiq
    # gem does, so an Active Job class may declare Sidekiq's options and retry
    # rules, which Deckhand's adapter and wrapper honour (the queue stays
    # Active Job's queue_as). Applications that include it themselves
    # (`ActiveJob::Base.include Sidekiq::Worker::Options`) get the same.
    #
    #   class ImportJob < ApplicationJob
    #     sidekiq_options retry: 3, backtrace: 10
    #     sidekiq_retry_in { |count, error, job| 60 * (count + 1) }
    #     sidekiq_retries_exhausted { |job, error| Alerts.import_failed(job["jid"]) }
    #   end
    #   ImportJob.get_sidekiq_options   # => {"retry" => 3, "queue" => "default", "backtrace" => 10}
    #
    # As in Sidekiq, options are the application's data: any key, any value,
    # stored as given (keys as strings) and inherited by subclasses. Only the
    # options that switch on a Deckhand feature (unique_for, encrypt, pool, ...)
    # are checked where they are declared, since a bad one would fail every push.
    # Sidekiq::Job classes have all of this too.
    module Options
      # Options Sidekiq itself never reads: Deckhand's features, validated
      # (nil, as Sidekiq stores it, means not set).
      FEATURES = %w[unique_for unique_until on_conflict expires_in encrypt max_iteration_runtime pool].freeze
      # Of those, the ones Deckhand keeps as Strings in its jobs, which
      # get_sidekiq_options gives back as declared (unique_until: :success).
      AS_DECLARED = %w[unique_until on_conflict].freeze
      DECLARED = :@sidekiq_declared

      def self.included(base)
        base.extend(Deckhand::Job::Declarations)
        base.extend(ClassMethods)
      end

      module ClassMethods
        def sidekiq_options(options = {})
          # Sidekiq Enterprise's unique_for, unique_until, expires_in and encrypt
          # are Deckhand's own options, pool: too (docs/sharding.md);
          # sidekiq-unique-jobs' lock: options are translated (UniqueJobsOptions).
          options = Deckhand::DropIn::UniqueJobsOptions.translate(options.transform_keys(&:to_s))
          options.slice(*FEATURES).each { |key, value| Deckhand::Job::Options.check!(key, value, self) unless value.nil? }
          declared = options.slice(*AS_DECLARED)
          instance_variable_set(DECLARED, (instance_variable_get(DECLARED) || {}).merge(declared)) unless declared.empty?
          # client_class picks how the class's jobs are pushed, kept apart from
          # what goes into them (DropIn::ClientClass).
          if options.key?(Deckhand::DropIn::ClientClass::KEY)
            instance_variable_set(Deckhand::DropIn::ClientClass::IVAR, options.delete(Deckhand::DropIn::ClientClass::KEY))
          end
          # Declarations#deckhand_options reads what is stored here, with the
          # superclasses' options under it.
          @deckhand_options = Deckhand::Job::Options.merge(@deckhand_options || {}, options, self, check: false)
          get_sidekiq_options
        end

        def get_sidekiq_options
          client = Deckhand::DropIn::ClientClass.of(self)
          options = client ? deckhand_options.merge(Deckhand::DropIn::ClientClass::KEY => client) : deckhand_options
          declared = ancestors.reverse.filter_map { |mod| mod.instance_variable_get(DECLARED) if mod.instance_variable_defined?(DECLARED) }
          declared.empty? ? options : options.merge(*declared)
        end

        def sidekiq_retry_in(&) = deckhand_retry_in(&)

        def sidekiq_retries_exhausted(&) = deckhand_retries_exhausted(&)

        def sidekiq_retry_in_block = deckhand_retry_in

        def sidekiq_retries_exhausted_block = deckhand_retries_exhausted

        # Class-level settings a subclass inherits until it sets its own,
        # readable (and settable) on instances too, as in Sidekiq:
        #
        #   sidekiq_class_attribute :count
        #   self.count = 0; HardJob.count; HardJob.new.count
        def sidekiq_class_attribute(*names)
          names.each do |name|
            ivar = :"@#{name}"
            define_singleton_method(name) do
              owner = ancestors.find { |mod| mod.is_a?(Class) && mod.instance_variable_defined?(ivar) }
              owner&.instance_variable_get(ivar)
            end
            define_singleton_method(:"#{name}=") { |value| instance_variable_set(ivar, value) }
            define_method(name) { instance_variable_defined?(ivar) ? instance_variable_get(ivar) : self.class.public_send(name) }
            define_method(:"#{name}=") { |value| instance_variable_set(ivar, value) }
          end
        end
      end
    end
  end
end
