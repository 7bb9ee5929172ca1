# frozen_string_literal: true

require_relative "../store/features/periodic_state"
require_relative "../store/scripts/periodic/periodic_history"
require_relative "periodic_entry"
require_relative "../periodic/job_builder"

module Deckhand
  class API
    # The fleet's periodic jobs, as the leader stored them in Redis (the
    # schedule that runs), and the leader's identity. Needs no cron parser:
    # the leader writes each entry's next tick.
    #
    #   periodic = api.periodic
    #   periodic.leader                      # => "host:1234:ab12" or nil
    #   periodic.each { |e| puts "#{e.name} #{e.cron} #{e.next_at}" }
    #   periodic.find("nightly").pause
    #   periodic.find("nightly").enqueue_now # => jid
    class PeriodicEntries
      include Enumerable

      def initialize(config)
        @config = config
        @store = config.store
        @schedule = Store::Features::PeriodicState.schedule(@store) || {}
        specs = @schedule["entries"].is_a?(Hash) ? @schedule["entries"] : {}
        names = specs.keys.sort
        histories = Store::Scripts::PeriodicHistory.read(@store, names)
        @entries = names.zip(Store::Features::PeriodicState.states(@store, names), histories).map do |name, state, history|
          PeriodicEntry.new(name, specs[name].is_a?(Hash) ? specs[name] : {}, state, config, history: history)
        end
      end

      # The identity of the process that holds the lease now, or nil.
      def leader = Store::Features::PeriodicState.leader(@store)

      # The process that wrote the schedule shown (the last leader).
      def scheduled_by = @schedule["leader"]

      # Yields each PeriodicEntry.
      def each(&) = @entries.each(&)

      # How many periodic jobs are known.
      def size = @entries.size

      # The entry named `name`, or nil.
      def find(name) = @entries.find { |entry| entry.name == name }

      # The entry named `name`; raises Deckhand::Error naming the known ones.
      def fetch(name)
        find(name) or raise Error, "no periodic entry named #{name.inspect}; known: #{@entries.map(&:name).join(", ")}"
      end
    end
  end
end
