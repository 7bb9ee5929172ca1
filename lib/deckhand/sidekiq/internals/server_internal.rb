# frozen_string_literal: true

module Deckhand
  module DropIn
    # For Sidekiq's server classes that drop-in mode names but does not run
    # (its fetcher, processor, manager, launcher): the constant is there, so
    # a file that requires it loads, and building one raises Unsupported
    # saying what Deckhand does in its place. Nothing pretends to work.
    #
    #   class Sidekiq::Manager
    #     extend Deckhand::DropIn::ServerInternal
    #     unsupported "Deckhand's server runs its own processor threads"
    #   end
    #   Sidekiq::Manager.new(capsule)   # => Deckhand::DropIn::Unsupported
    module ServerInternal
      def unsupported(hint)
        @unsupported_hint = hint
      end

      # A subclass (an application's own tab or fetcher) says which
      # Sidekiq class it builds on.
      def new(*, **)
        owner = ancestors.find { |klass| klass.instance_variable_defined?(:@unsupported_hint) }
        raise Unsupported.new(owner.equal?(self) ? name : "#{owner.name} (#{name})", owner.instance_variable_get(:@unsupported_hint))
      end

      # The Deckhand::Config behind a Sidekiq::Capsule or Sidekiq::Config (or
      # itself), for the adapters that run on Deckhand's machinery.
      def self.config_of(config)
        config = config.config until config.is_a?(Deckhand::Config)
        config
      end
    end
  end
end
