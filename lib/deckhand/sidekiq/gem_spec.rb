# frozen_string_literal: true

module Deckhand
  module DropIn
    # What RubyGems says of the sidekiq gem in drop-in mode. Some plugins
    # read Sidekiq's version from `Gem.loaded_specs["sidekiq"]`
    # (sidekiq_alive) rather than Sidekiq::VERSION, and fail on nil: drop-in
    # mode registers a specification named sidekiq at its API level
    # (Sidekiq::VERSION), its summary saying what it is, unless a real one
    # is there (then drop-in mode refused to load anyway).
    #
    #   GemSpec.register
    #   Gem.loaded_specs["sidekiq"].version   # => Gem::Version.new("7.3.0")
    #   Gem.loaded_specs["sidekiq"].summary   # => "Deckhand's drop-in mode ..."
    module GemSpec
      def self.register
        return if Gem.loaded_specs.key?("sidekiq")
        Gem.loaded_specs["sidekiq"] = Gem::Specification.new do |spec|
          spec.name = "sidekiq"
          spec.version = Sidekiq::VERSION
          spec.summary = "Deckhand's drop-in mode (deckhand #{Deckhand::VERSION}), standing in for the sidekiq gem"
          spec.authors = ["Deckhand"]
          spec.files = []
        end
      end
    end
  end
end
