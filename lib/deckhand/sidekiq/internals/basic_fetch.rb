# frozen_string_literal: true

module Sidekiq
  # Sidekiq's fetcher in drop-in mode, what a Sidekiq::Processor asks for
  # work (Sidekiq::Capsule#fetcher). Deckhand never takes a job out of
  # Redis with nothing holding it: its server's fetch moves each job into
  # the process's in-flight record until its outcome is written (and a
  # process that dies has its jobs recovered), so `retrieve_work`, which
  # would pop one as Sidekiq's BRPOP does, raises Unsupported. What needs no
  # pop works: the queue order a fetch would ask (`queues_cmd`) and putting
  # jobs back at the front of their queues (`bulk_requeue`, a unit's `requeue`).
  #
  #   fetch = Sidekiq::BasicFetch.new(Sidekiq.default_configuration.default_capsule)
  #   fetch.queues_cmd          # => ["queue:critical", "queue:default"]
  #   fetch.retrieve_work       # => Deckhand::DropIn::Unsupported
  class BasicFetch
    TIMEOUT = 2

    # A fetched job: its list ("queue:default"), its JSON and the
    # configuration whose Redis it came from.
    UnitOfWork = Struct.new(:queue, :job, :config) do
      # Nothing to settle: the job left its list when it was taken.
      def acknowledge = nil

      def queue_name = queue.delete_prefix("queue:")

      # Back to the front of its list, taken next.
      def requeue = Deckhand::Store::Jobs::Queues.put_back(BasicFetch.store_of(config), queue_name => [job])
    end

    # The Deckhand store behind a capsule or configuration (the default one's without).
    def self.store_of(config) = Deckhand::DropIn::ServerInternal.config_of(config || Sidekiq.default_configuration).store

    attr_reader :config

    def initialize(capsule)
      raise ArgumentError, "missing queue list" unless capsule.queues
      @config = capsule
      @strict = capsule.mode == :strict
      @queues = capsule.queues.map { |name| Deckhand::Store::Layout::Plain.queue(name) } # Sidekiq's own lists, plain mode
      @queues.uniq! if @strict
    end

    # The lists in the order a fetch would try them: as listed when strict,
    # shuffled by weight otherwise.
    def queues_cmd = @strict ? @queues : @queues.shuffle.uniq

    def retrieve_work
      raise Deckhand::DropIn::Unsupported.new("Sidekiq::BasicFetch#retrieve_work",
        "it would take a job out of Redis with nothing holding it; Deckhand's server fetches into an in-flight " \
        "record until the job's outcome is written, and runs jobs on its own processors (start one with the " \
        "`deckhand` command, Sidekiq.configure_embed or Sidekiq::Launcher)")
    end

    # Each unit's job back at the front of its list, one round trip.
    def bulk_requeue(units)
      return if units.empty?
      Deckhand::Store::Jobs::Queues.put_back(BasicFetch.store_of(@config), units.group_by(&:queue_name).transform_values { |group| group.map(&:job) })
      @config.logger.info("Pushed #{units.size} jobs back to Redis")
    rescue Deckhand::RedisError => e
      @config.logger.warn("Failed to requeue #{units.size} jobs: #{e.message}")
    end
  end
end
