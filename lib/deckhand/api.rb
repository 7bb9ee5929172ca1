# frozen_string_literal: true

require_relative "../deckhand"
require_relative "store/jobs/queues"
require_relative "store/sets/one_set"
require_relative "store/records/execution_metrics"
require_relative "store/records/error_metrics"
require_relative "store/records/stat_counters"
require_relative "store/records/process_record"
require_relative "store/connection/info"
require_relative "store/connection/redis_memory"
require_relative "store/connection/memory_concerns"
require_relative "api/stats"
require_relative "api/history"
require_relative "api/queue"
require_relative "api/queue_holders"
require_relative "api/iteration"
require_relative "api/job_set"
require_relative "api/job_search"
require_relative "api/process_set"
require_relative "api/metrics"
require_relative "api/throughput"
require_relative "api/failures_by_error"
require_relative "api/queue_history"
require_relative "api/redis_info"
require_relative "api/eviction"
require_relative "api/unworked_queues"
require_relative "api/unique_lock"
require_relative "api/collapse_record"
require_relative "api/class_pauses"
require_relative "api/periodic_entries"
require_relative "api/throttle"
require_relative "api/profile"
require_relative "api/placement"
require_relative "api/queue_moves"
require_relative "api/cancellation"
require_relative "api/workflows"
require_relative "store/limits"

module Deckhand
  # Reads and acts on a live Deckhand system (or a Sidekiq one: the layout is
  # shared), for the dashboard, the command line and your own scripts. Every
  # read is bounded: pages, counts and scans, never a whole queue or set.
  #
  #   require "deckhand/api"
  #   api = Deckhand::API.new                     # Redis from Deckhand.config
  #   api.stats.processed                         # => 1_204_113
  #   api.history(days: 30).map(&:processed)      # one number per day
  #   api.queues.map { |q| [q.name, q.size, q.latency] }
  #   api.queue("mailers").pause
  #   api.class_pauses.pause("ReportJob")         # its jobs wait; the queue's others run
  #   api.retries.filter("Net::ReadTimeout").first.then { |found| api.retries.retry(found) }
  #   api.dead.delete_all
  #   api.find_by_argument("98431").hits.map(&:place)   # => [:retries, "mailers"]
  #   api.processes.each(&:quiet!)
  #   api.metrics(period: "24h").classes.first.p95_ms
  #   api.placement.primaries.map { |p| [p.address, p.queues, p.share] }
  #   api.eviction.warnings                       # => [] when Redis cannot evict jobs
  #
  # The same in cluster mode (docs/cluster.md), where the schedule, retry and
  # dead sets are one sorted set per queue: sizes add up the queues', pages
  # merge them in score order, and an entry goes back to its own queue.
  class API
    attr_reader :config

    def initialize(config = Deckhand.config)
      @config = config
    end

    # The dashboard's headline numbers.
    #
    #   api.stats.enqueued   # => jobs waiting in all queues
    #
    # @return [Stats]
    def stats = Stats.new(@config)

    # Now by Redis' clock (a Time), which the fleet writes its times by
    # (Store::Records::Clock): how long ago a process beat or a job was queued,
    # counted right even where this host's clock is off. Asks Redis when
    # the clock was last read a minute ago or more.
    def now
      clock = @config.store.clock
      clock.refresh
      Time.at(clock.now)
    end

    # A queue's throttle (docs/limits.md), and every throttled queue.
    def throttle(queue) = Throttle.new(queue, @config)

    # processes: an API::ProcessSet already read, to save a round trip.
    def throttles(processes: nil) = Throttle.all(@config, processes: processes)

    # Limiters used in the last day with their metrics (Hashes), name containing `filter`.
    def limiters(filter: nil) = Store::Limits.list(@config.store, filter: filter)

    # Processed and failed jobs per day, newest first, for `days` days to `today`.
    #
    # @return [History]
    def history(days: 30, today: Time.now.utc.to_date) = History.new(@config, days: days, today: today)

    # Every known queue, by name.
    #
    #   api.queues.map { |queue| [queue.name, queue.size] }
    #
    # @return [Array<Queue>]
    def queues = Queue.all(@config)

    # The queue of that name, whether or not it holds jobs.
    #
    # @return [Queue]
    def queue(name) = Queue.new(name, @config)

    # The job classes holding each queue (QueueHolders), the running ones
    # and a sample of `sample` jobs at each head, in one round trip.
    #
    #   api.queue_holders(api.queues) # => {"reports" => QueueHolders, ...}
    #
    # @return [Hash{String => QueueHolders}]
    def queue_holders(queues = self.queues, sample: QueueHolders::LIST_SAMPLE, running: self.running)
      QueueHolders.read(@config, queues, running: running, sample: sample)
    end

    # The scheduled jobs.
    #
    # @return [JobSet]
    def scheduled = JobSet.new(:scheduled, @config)

    # The jobs waiting for a retry.
    #
    # @return [JobSet]
    def retries = JobSet.new(:retries, @config)

    # The dead jobs, newest death first.
    #
    # @return [JobSet]
    def dead = JobSet.new(:dead, @config)

    # The set named :scheduled, :retries or :dead.
    #
    # @return [JobSet]
    def job_set(name) = JobSet.new(name, @config)

    # Jobs with an argument equal to `text` in the sets and queues, each
    # searched a bounded way (API::JobSearch: its limits, and what it left).
    def find_by_argument(text, limit: JobSearch::LIMIT) = JobSearch.new(@config, text, limit: limit)

    # The live server processes.
    #
    # @return [ProcessSet]
    def processes = ProcessSet.new(@config)

    # Which primary holds which queue, each one's share (API::Placement).
    def placement = Placement.new(@config)

    # Moves queues between a cluster's primaries (API::QueueMoves).
    def queue_moves(timeout: 60) = QueueMoves.new(@config, timeout: timeout)

    # The jobs running now, over every live process.
    def running = processes.running

    # jid => API::Iteration: the saved progress of those jobs that iterate.
    def iterations(jids) = Iteration.for_jids(@config, jids)

    # Cancels a job by its jid, wherever it is (Client.cancel): returns what
    # happened, :removed_from_queue ... :cancelling_running or :not_found.
    def cancel(jid, grace: nil) = Client.new(config: @config).cancel(jid, grace: grace)

    # What became of a job cancelled in the last day (API::Cancellation), or nil.
    def cancellation(jid) = Cancellation.find(@config, jid)

    # Those of `jids` someone cancelled in the last day (their cancel mark is
    # set): running ones are being stopped.
    def cancelling(jids) = Store::Jobs::Cancellations.marked_among(@config.store, jids)

    # The workflows (docs/workflows.md), newest first, a page at a time.
    #
    #   api.workflows.page(1, 25).map { |flow| [flow.description, flow.state] }
    #
    # @return [Workflows]
    def workflows = Workflows.new(@config)

    # One workflow by its id, with its steps; nil once its keys expired.
    #
    #   api.workflow(id).levels.map { |steps| steps.map(&:state) }
    #
    # @return [WorkflowRecord, nil]
    def workflow(id) = WorkflowRecord.find(@config, id)

    # Per-class execution metrics over `period` ("1h", "4h", "24h", "72h", "30d", "365d").
    #
    #   api.metrics(period: "24h").classes.first.p95_ms
    #
    # @return [Metrics]
    def metrics(period: "1h") = Metrics.new(@config, period: period)

    # The fleet's jobs processed and failed per minute over `period` ("1h",
    # "4h"), per hour over "24h" and "72h", from the stored metrics.
    #
    #   api.throughput(period: "1h").points.last   # => [Time, 412, 3]: the current minute so far
    #
    # @return [Throughput]
    def throughput(period: "1h") = Throughput.new(@config, period: period)

    # Failed executions per error class over `period` ("1h", "4h", "24h",
    # "72h"), the three most failing classes apart.
    #
    #   api.failures_by_error(period: "24h").series.first   # => ["Net::ReadTimeout", [0, 3, ...]]
    #
    # @return [FailuresByError]
    def failures_by_error(period: "1h") = FailuresByError.new(@config, period: period)

    # A queue's depth and latency over `period` ("1h", "4h", "24h", "72h"),
    # from the samples one server process takes each minute.
    #
    #   api.queue_history("mailers", period: "24h").points.last   # => [Time, 120, 4.5] (jobs, seconds)
    #
    # @return [QueueHistory]
    def queue_history(name, period: "1h") = QueueHistory.new(@config, name, period: period)

    # Redis' own figures (version, memory, clients).
    #
    # @return [RedisInfo]
    def redis_info = RedisInfo.new(@config)

    # Whether Redis may evict Deckhand's keys, per primary, and the warnings (API::Eviction).
    def eviction = Eviction.new(@config)

    # The unique lock of a job (a JobRecord or a job Hash), or nil.
    def unique_lock(record) = UniqueLock.of(record, @config)

    # Pause by job class: pause, resume, what is held (API::ClassPauses).
    def class_pauses = ClassPauses.new(@config)

    # The debounce: or dedupe: of a job (a JobRecord or a job Hash), or nil.
    def collapse(record) = CollapseRecord.of(record, @config)

    # Periodic (cron) jobs: the leader's schedule, pause, resume, enqueue now.
    def periodic = PeriodicEntries.new(@config)

    # Jobs' profiles (docs/profiling.md), the newest first.
    def profiles = Profile.all(@config)

    # One profile by its key ("<token>-<jid>"), or nil.
    def profile(key) = Profile.find(@config, key)

    # Queues holding jobs that no live process works (the boot warning, the dashboard's).
    def unworked_queues = UnworkedQueues.new(@config)
  end
end
