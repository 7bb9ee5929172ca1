# frozen_string_literal: true

module Sidekiq
  module Job
    # Sidekiq's option declarations alone, for classes that are not jobs
    # themselves (Sidekiq's Rails support includes it into ActiveJob::Base):
    #
    #   ActiveJob::Base.include(Sidekiq::Job::Options)
    #   class ReportJob < ApplicationJob
    #     sidekiq_options retry: 4, backtrace: 5
    #   end
    #   ReportJob.get_sidekiq_options   # => {"retry" => 4, "queue" => "default", "backtrace" => 5}
    #
    # As in Sidekiq, options are the application's data: any key, any value,
    # stored as given (keys as strings) and inherited by subclasses. Only the
    # options that switch on a Deckhand feature (unique_for, encrypt, pool, ...)
    # are checked where they are declared, since a bad one would fail every push.
    module Options
      # Options Sidekiq itself never reads: Deckhand's features, validated.
      FEATURES = %w[unique_for unique_until on_conflict expires_in encrypt max_iteration_runtime pool].freeze

      def self.included(base)
        base.extend(Deckhand::Job::Declarations) unless base.respond_to?(:deckhand_options)
        base.extend(ClassMethods)
      end

      module ClassMethods
        def sidekiq_options(options = {})
          # Sidekiq Enterprise's unique_for, unique_until, expires_in and encrypt
          # are Deckhand's own options, pool: too (docs/sharding.md);
          # sidekiq-unique-jobs' lock: options are translated (UniqueJobsOptions).
          options = Deckhand::DropIn::UniqueJobsOptions.translate(options.transform_keys(&:to_s))
          options.slice(*FEATURES).each { |key, value| Deckhand::Job::Options.check!(key, value, self) }
          # Declarations#deckhand_options reads what is stored here, with the
          # superclasses' options under it.
          @deckhand_options = Deckhand::Job::Options.merge(@deckhand_options || {}, options, self, check: false)
          get_sidekiq_options
        end

        def get_sidekiq_options = deckhand_options

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
