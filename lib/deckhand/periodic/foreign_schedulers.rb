# frozen_string_literal: true

require_relative "../store/features/foreign_schedules"
require_relative "../store/records/process_record"

module Deckhand
  module Periodic
    # Keeps a periodic entry from being enqueued twice in a mixed fleet:
    # while a Sidekiq process is registered in this Redis and sidekiq-cron or
    # sidekiq-scheduler there has an enabled entry of the same class, that
    # scheduler (in the Sidekiq processes) enqueues it and Deckhand leaves it
    # alone, saying so once; Deckhand takes the entry over when the last
    # Sidekiq process is gone or the other entry is disabled or deleted. The
    # leader looks at most every EVERY seconds.
    #
    #   foreign = ForeignSchedulers.new(store, logger)
    #   foreign.owner(entry)   # => nil (Deckhand enqueues it) or the other scheduler's Store::Features::ForeignSchedules::Entry
    class ForeignSchedulers
      EVERY = 5

      def initialize(store, logger)
        @store = store
        @logger = logger
        @by_class = {}
        @sidekiqs = []
        @checked = nil
        @told = {}
      end

      def owner(entry)
        refresh if @checked.nil? || Monotonic.now - @checked >= EVERY
        owner = @by_class[entry.klass]
        tell(entry, owner)
        owner
      end

      private

      def refresh
        @checked = Monotonic.now
        foreign = Store::Features::ForeignSchedules.read(@store)
        @sidekiqs = foreign.empty? ? [] : sidekiq_processes
        @by_class = @sidekiqs.empty? ? {} : foreign.group_by(&:klass).transform_values(&:first)
        @stale = @sidekiqs.empty? ? foreign : []
      end

      def sidekiq_processes
        records = Store::Records::ProcessRecord.read(@store, Store::Records::ProcessRecord.identities(@store)).compact
        records.reject { |record| record.info["server"] == "deckhand" }.map(&:identity)
      end

      # Once per change of who enqueues the entry.
      def tell(entry, owner)
        told = owner&.key
        return if @told.fetch(entry.name, :never) == told
        first = !@told.key?(entry.name)
        @told[entry.name] = told
        if owner
          @logger.warn(refusal(entry, owner))
        elsif !first
          @logger.info("periodic #{entry.name} (#{entry.klass}): no other scheduler enqueues it any more; Deckhand enqueues it from now on")
        end
        left = @stale.find { |other| other.klass == entry.klass }
        @logger.info(leftover(entry, left)) if left && !owner
      end

      def refusal(entry, owner)
        "periodic #{entry.name} (#{entry.klass}): not enqueued by Deckhand, so that no tick runs twice: #{owner.scheduler}'s " \
          "entry #{owner.name.inspect} (#{owner.key}) enqueues #{entry.klass} too, and Sidekiq processes share this Redis " \
          "(#{@sidekiqs.first(3).join(", ")}). Deckhand takes the entry over when no Sidekiq process is left. To move it " \
          "sooner, #{how_to_stop(owner)}"
      end

      def leftover(entry, other)
        "periodic #{entry.name} (#{entry.klass}): #{other.scheduler}'s entry #{other.name.inspect} (#{other.key}) is still " \
          "in Redis but no Sidekiq process runs it: Deckhand enqueues #{entry.klass}. Should Sidekiq come back (a rollback), " \
          "Deckhand leaves the entry to it again; once the switch is done, #{how_to_stop(other)}"
      end

      def how_to_stop(other)
        if other.scheduler == "sidekiq-cron"
          "disable or delete it in sidekiq-cron (its Cron tab, or Sidekiq::Cron::Job.destroy(#{other.name.inspect}) " \
            "in a Sidekiq process) or remove sidekiq-cron from the Sidekiq processes and delete #{other.key}"
        else
          "disable it in sidekiq-scheduler (its Recurring Jobs tab, or `enabled: false`) or remove it from the schedule " \
            "the Sidekiq processes load and delete its field #{other.name.inspect} of the hash #{Store::Features::ForeignSchedules::SCHEDULES}"
        end
      end
    end
  end
end
