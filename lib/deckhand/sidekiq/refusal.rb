# frozen_string_literal: true

module Deckhand
  # Why drop-in mode cannot load, and exactly what to change. The real
  # sidekiq gem, once loaded, cannot be replaced: drop-in mode must be the
  # first to answer `require "sidekiq"`. The bundle's gems that depend on
  # sidekiq (a plugin keeps the gem in the bundle) are named, with the fix
  # for each: a scheduler is removed (Deckhand runs its schedule), another
  # plugin goes below Deckhand in the Gemfile, as Bundler.require loads gems
  # in Gemfile order. Kept apart from Deckhand::DropIn, which marks drop-in
  # mode as loaded.
  #
  #   raise LoadError, DropInRefusal.sidekiq_loaded(Sidekiq::VERSION)
  #   raise LoadError, DropInRefusal.scheduler("sidekiq-cron")
  module DropInRefusal
    SCHEDULERS = %w[sidekiq-cron sidekiq-scheduler].freeze
    SCHEDULES = "Deckhand reads its schedule into periodic jobs (docs/migrating-from-sidekiq.md, \"Schedules\")"

    module_function

    # specs: the gems loaded (Bundler loads every gem of the bundle's groups);
    # direct: the Gemfile's own gem names, when known.
    def sidekiq_loaded(version, specs: Gem.loaded_specs.values, direct: gemfile_names)
      plugins = specs.select { |spec| spec.name != "sidekiq" && spec.runtime_dependencies.any? { |dep| dep.name == "sidekiq" } }
      steps = []
      steps << "remove `gem \"sidekiq\"` from the Gemfile" if direct&.include?("sidekiq")
      schedulers, others = plugins.partition { |spec| SCHEDULERS.include?(spec.name) }
      steps << "remove #{names(schedulers)}: #{SCHEDULES}" unless schedulers.empty?
      unless others.empty?
        steps << "move `gem \"deckhand\", require: \"deckhand/sidekiq\"` above #{names(others)} in the Gemfile, so that " \
          "#{(others.size == 1) ? "its" : "their"} `require \"sidekiq\"` loads drop-in mode (Bundler.require loads gems in " \
          "Gemfile order; such a plugin works if it uses Sidekiq's public API alone)"
      end
      if steps.empty?
        steps << "require \"deckhand/sidekiq\" before anything requires \"sidekiq\" (in the Gemfile, " \
          "`gem \"deckhand\", require: \"deckhand/sidekiq\"` above the gems that use Sidekiq; outside Rails, at the top " \
          "of the file `deckhand -r` loads)"
      end
      "deckhand/sidekiq (drop-in mode) must answer `require \"sidekiq\"`, but the sidekiq gem #{version} is already loaded" \
        "#{" (#{origin})" if origin}#{"; the bundle holds it for #{names(plugins)}" unless plugins.empty?}. To switch: " \
        "#{steps.join("; ")}. A process runs one or the other; both can share a Redis"
    end

    # The message of a scheduler plugin's require in drop-in mode.
    def scheduler(name)
      "#{name} does not run in drop-in mode (it is built on Sidekiq's internals): remove `gem \"#{name}\"` from the " \
        "Gemfile of the processes that run Deckhand; #{SCHEDULES}. While Sidekiq processes of the same Redis still run " \
        "#{name}, Deckhand leaves each entry they enqueue to them"
    end

    def names(specs) = specs.map { |spec| "#{spec.name} #{spec.version}" }.join(", ")

    def origin
      file = $LOADED_FEATURES.find { |path| path.end_with?("/sidekiq.rb") && !path.include?("/deckhand/") }
      "from #{file}" if file
    end

    def gemfile_names
      return nil unless defined?(::Bundler) && ::Bundler.respond_to?(:definition)
      ::Bundler.definition.dependencies.map(&:name)
    rescue
      nil
    end
  end
end
