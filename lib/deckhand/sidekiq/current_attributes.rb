# frozen_string_literal: true

require "active_support"
require "active_support/current_attributes"

module Sidekiq
  # Sidekiq's `CurrentAttributes.persist` in drop-in mode: a client middleware
  # copies the attributes of ActiveSupport::CurrentAttributes classes into
  # each pushed job ("cattr", "cattr_1", ...), and a server middleware sets
  # them again around the job, so Current.user survives the trip to Redis.
  # The job keys are Sidekiq's, so jobs pushed by either run on either: as
  # Sidekiq 8 writes them (serialized as Active Job serializes arguments,
  # so a Time or a record's GlobalID survives) or as Sidekiq 7.3 does (a
  # Hash), as the version drop-in mode stands in for; both are read.
  #
  #   # config/initializers/sidekiq.rb
  #   require "sidekiq/middleware/current_attributes"
  #   Sidekiq::CurrentAttributes.persist("Myapp::Current")            # or a list of classes
  module CurrentAttributes
    # Client middleware: the attributes go with the job, unless it has them.
    class Save
      include Sidekiq::ClientMiddleware

      def initialize(classes)
        @classes = classes
      end

      def call(_job_class, job, _queue, _store)
        @classes.each do |key, name|
          next if job.key?(key)
          attributes = Object.const_get(name).attributes
          job[key] = CurrentAttributes.dump(attributes) unless attributes.empty?
        end
        yield
      end
    end

    # Server middleware: the job runs inside `Class.set(attributes)` of each.
    class Load
      include Sidekiq::ServerMiddleware

      def initialize(classes)
        @classes = classes
      end

      def call(_job, payload, _queue, &block)
        sets = @classes.filter_map { |key, name| [Object.const_get(name), CurrentAttributes.load(payload[key])] if payload.key?(key) }
        within(sets, &block)
      end

      private

      # Attributes the class no longer defines (renamed since the push) are dropped.
      def within(sets, &block)
        klass, attributes = sets.first
        return yield unless klass
        known = attributes.select { |name, _| klass.respond_to?(:"#{name}=") }
        klass.set(known) { within(sets.drop(1), &block) }
      end
    end

    # The attributes as the version writes them into the job.
    def self.dump(attributes)
      return attributes.dup unless Deckhand::DropIn.version.cattr_serialized?
      serializer.serialize(attributes)
    end

    # The attributes from either format: Sidekiq 8's serialized pairs, or
    # 7's Hash.
    def self.load(value)
      return value unless value.is_a?(Array)
      serializer.deserialize(value).to_h
    end

    # Active Job's argument serializer, loaded when first needed with what
    # it serializes (GlobalID, times and durations).
    def self.serializer
      require "active_support/time"
      require "active_job"
      ::ActiveJob::Arguments
    end

    # Persists one class (or name), or a list, through `config`'s middleware.
    def self.persist(classes, config = Sidekiq.default_configuration)
      names = Array(classes).each_with_index.to_h { |klass, index| [index.zero? ? "cattr" : "cattr_#{index}", klass.to_s] }
      config.client_middleware.add(Save, names)
      config.server_middleware.prepend(Load, names)
    end
  end
end
