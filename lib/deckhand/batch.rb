# frozen_string_literal: true

require "securerandom"
require_relative "../deckhand"
require_relative "store/layout/plain_batches"
require_relative "batch/ops"
require_relative "batch/callbacks"
require_relative "batch/collector"
require_relative "batch/writer"
require_relative "batch/tracker"
require_relative "batch/server_middleware"
require_relative "batch/callback_job"
require_relative "batch/status"
require_relative "batch/listing"

module Deckhand
  # A group of jobs tracked together, with callbacks when they are done.
  #
  #   batch = Deckhand::Batch.new
  #   batch.description = "Import 2026-11 customers"
  #   batch.on(:success, ImportCallbacks, "import_id" => 7)  # every job succeeded
  #   batch.on(:complete, ImportCallbacks)                   # every job ran once
  #   batch.on(:death, ImportCallbacks)                      # a job died
  #   batch.jobs do
  #     Customer.ids.each_slice(1_000) { |ids| ImportJob.perform_async(ids.first, ids.last) }
  #   end
  #   Deckhand::Batch::Status.new(batch.bid).pending   # => 120
  #
  #   class ImportCallbacks
  #     def on_success(status, options) = Import.find(options["import_id"]).done!(status.total)
  #   end
  #
  # The jobs pushed inside `jobs { }` carry the batch's id as "bid", as Sidekiq
  # Pro writes it. They reach Redis together when the block returns, a thousand
  # per round trip, or not at all if it raises. A job of the batch may add jobs
  # to it (Deckhand::Batch.current.jobs { }); a batch created inside another's
  # `jobs { }` is its child, and the parent succeeds only after it.
  class Batch
    # The callbacks a batch may have: on_complete, on_success, on_death.
    EVENTS = %w[complete success death].freeze

    # A batch's jobs cannot be added: it succeeded already, or it expired.
    class Closed < Deckhand::Error; end

    @lock = Mutex.new

    class << self
      # Enables batches for a Config: server middleware that records each job's
      # outcome and a final-failure handler that records its death; settings
      # given replace config.batches (Config::Batches: callback_queue,
      # success_ttl, idle_ttl).
      # `require "deckhand/batch"` does it for Deckhand.config, which is the
      # one the `deckhand` command builds before it loads your application.
      def install(config = Deckhand.config, **settings)
        if config.booted?
          raise ConfigError, "batches must be installed before the server boots: require \"deckhand/batch\" " \
            "in the file `deckhand -r` loads, or call Deckhand::Batch.install(config) before starting it"
        end
        @lock.synchronize do
          config.batches = settings unless settings.empty?
          unless config.server_middleware.include?(ServerMiddleware)
            config.server_middleware.prepend(ServerMiddleware, config)
            # Before the dead set is written, so a crash in between cannot lose it (Tracker).
            config.on_final_failure { |job, error, outcome| Tracker.new(config).final(job, error, outcome) }
            # An expired job counts as a success, as it would had it run and done nothing.
            config.on_expired { |job| Tracker.new(config).success(job["bid"], job["jid"]) if job["bid"] }
            config.events.on(:startup) { Ops.deliver_left(config) }
          end
        end
        config
      end

      # The batch of the job running on this thread, or nil.
      def current(config: Deckhand.config)
        bid = Thread.current[ServerMiddleware::CURRENT]
        bid && new(bid, config: config)
      end

      # 14 URL-safe characters, the shape of Sidekiq Pro's batch ids.
      def generate_bid = SecureRandom.urlsafe_base64(10)
    end

    attr_reader :bid, :parent_bid, :description, :callback_queue, :success_ttl, :idle_ttl, :config

    # A new batch, or with a bid the existing batch, to add jobs to it. In a
    # Client.via block, on that block's Redis (with its jobs).
    def initialize(bid = nil, config: Client.current_config)
      @config = config
      @created = !bid.nil?
      @bid = bid || self.class.generate_bid
      defaults = config.batches
      @callback_queue = defaults.callback_queue
      @success_ttl = defaults.success_ttl
      @idle_ttl = defaults.idle_ttl
      @callbacks = Callbacks.new
      @held_over = [] # batches an incomplete write of this one left held
    end

    def description=(text)
      creating!(:description)
      @description = text.to_s
    end

    def callback_queue=(name)
      creating!(:callback_queue)
      @callback_queue = Config::Batches.queue!(name)
    end

    def success_ttl=(seconds)
      creating!(:success_ttl)
      @success_ttl = Config::Batches.ttl!(:success_ttl, seconds)
    end

    def idle_ttl=(seconds)
      creating!(:idle_ttl)
      @idle_ttl = Config::Batches.ttl!(:idle_ttl, seconds)
    end

    # Registers a callback: target.new.on_<event>(status, options) runs as a job
    # once the event happens. target is a class or its name; options JSON-native.
    def on(event, target, options = {})
      creating!(:callbacks)
      @callbacks.add(event, target, options)
      self
    end

    # Runs the block; the jobs it pushes join this batch. Returns their jids.
    #
    # When Redis does not take them all, it raises an error carrying
    # Deckhand::PushIncomplete (which jobs are queued, which are not) and
    # the batch stays held, so that it cannot succeed with jobs missing.
    # Push the jobs given back in the next `jobs` block of this Batch: each
    # joins the batch it names (a child's too), and once they are written
    # the holds are let go.
    #
    #   rescue Deckhand::PushIncomplete => e
    #     batch.jobs { e.unpushed.each { |job| Deckhand::Client.push(job) } }
    def jobs
      raise ArgumentError, "Batch#jobs needs a block that pushes the batch's jobs" unless block_given?
      outer = Thread.current[Client::COLLECTOR]
      outer = nil unless outer.is_a?(Collector)
      @parent_bid ||= outer.batch.bid if outer && !@created && !outer.batch.equal?(self)
      collector = Collector.new(self, @held_over)
      Client.collecting(collector) { yield self }
      if outer
        outer.adopt(collector)
      else
        left, @held_over = @held_over, []
        Writer.new(@config).write(collector, left)
      end
      collector.jids
    end

    # Batch::Writer says its write stopped with these batches held (this
    # one and those created or reopened inside its block).
    def held_over!(batches) = @held_over = batches # :nodoc:

    # Whether the batch was written to Redis (by its first #jobs block).
    def created? = @created

    # The batch's state as Redis has it now.
    #
    #   batch.status.pending   # => jobs not yet succeeded
    #
    # @return [Batch::Status]
    def status = Status.new(@bid, config: @config)

    # What Batch::Writer sends to create the batch in Redis.
    def creation_args # :nodoc:
      {parent: @parent_bid, idle_ttl_ms: (@idle_ttl * 1000).ceil, success_ttl_ms: (@success_ttl * 1000).ceil,
       callback_queue: @callback_queue, description: @description.to_s,
       callbacks: EVENTS.map { |event| @callbacks.encoded(event, @bid, @callback_queue) }}
    end

    # Batch::Writer says Redis has the batch.
    def created! = @created = true # :nodoc:

    def inspect = "#<Deckhand::Batch #{@bid}#{" (new)" unless @created}>"

    private

    def creating!(what)
      return unless @created
      raise ArgumentError, "batch #{@bid} exists already: its #{what} is set on a new Batch, before its first jobs block"
    end
  end
end

if Deckhand.config.booted?
  Deckhand.logger.warn("deckhand/batch was loaded after the server booted: batch jobs run but are not tracked; " \
    "require it in the file `deckhand -r` loads")
else
  Deckhand::Batch.install(Deckhand.config)
end
