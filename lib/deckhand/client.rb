# frozen_string_literal: true

require_relative "client/push_buffer"
require_relative "client/locked_push"
require_relative "client/collapsed_push"
require_relative "client/partition_keys"
require_relative "client/target"
require_relative "client/scopes"
require_relative "client/delivery"
require_relative "client/bulk_push"
require_relative "client/bulk_times"
require_relative "client/job_cancel"
require_relative "client/cancelling"
require_relative "unique"
require_relative "encryption"
require_relative "store/features/unique_locks"
require_relative "store/jobs/queues"

module Deckhand
  # Pushes jobs to Redis in Sidekiq's format. Job classes call it for you;
  # call it directly to push a job whose class lives in another codebase.
  #
  #   Deckhand::Client.push("class" => "WelcomeEmailJob", "args" => [42])          # => jid
  #   Deckhand::Client.push("class" => "Report", "args" => [], "at" => Time.now.to_f + 60)
  #   Deckhand::Client.push_bulk("class" => "WelcomeEmailJob", "args" => [[1], [2], [3]]) # => [jid, jid, jid]
  #
  # Client.via and Client.collecting (Client::Scopes) send the pushes of a
  # block elsewhere; Client::Delivery encodes and hands on what is ready;
  # Client.cancel and #cancel (Client::Cancelling) cancel a job by its jid.
  class Client
    extend Scopes
    include Cancelling
    extend Cancelling::ClassSide

    # Jobs push_bulk writes per round trip unless told (`batch_size:`).
    BULK_BATCH = 1_000
    # Thread (fiber) locals of Client::Scopes: the collector, the via target.
    COLLECTOR = :deckhand_client_collector
    # The thread (fiber) local of Client.via's target.
    VIA = :deckhand_client_via
    # Fiber local of a push_bulk's slice being written (Client::BulkPush).
    SLICE = :deckhand_client_slice

    # Pushes one job with the default configuration (#push).
    #
    #   Deckhand::Client.push("class" => "HardJob", "args" => [1, "bob"])   # => "b4a5..." (its jid)
    def self.push(item) = new.push(item)

    # Pushes many jobs of one class with the default configuration (#push_bulk).
    #
    #   Deckhand::Client.push_bulk("class" => "HardJob", "args" => [[1], [2], [3]])   # => their jids
    def self.push_bulk(item) = new.push_bulk(item)

    class << self
      # Where encoded jobs go instead of Redis, when set: anything that answers
      # call(queued, scheduled, config), queued being a Hash of queue name =>
      # [json, ...] and scheduled a flat [at, json, at, json, ...] list (the
      # arguments of LPUSH and ZADD). Process-wide. Deckhand::Testing sets a fake
      # or an inline runner, Deckhand::Railtie a push-after-commit wrapper; a
      # pusher that wraps another calls it, or Client.write when there was none.
      attr_accessor :pusher

      # How client middleware is called, when set: anything answering
      # call(given_class, job, config) with the arguments to pass. Unset,
      # they are the class name, the job, its queue and the store; drop-in
      # mode sets Sidekiq's (DropIn::ClientMiddlewareCall). Process-wide.
      attr_accessor :middleware_call

      # Writes encoded jobs to Redis: scheduled jobs to the schedule set, the
      # rest to their queues (newest on the left, as Sidekiq does), in one
      # round trip (Client::Delivery.write). What a push does when no pusher
      # is set. `scheduled_queues`, when known, names the queue of each
      # scheduled job (cluster mode files it in that queue's scheduled set).
      def write(queued, scheduled, config, scheduled_queues = nil) = Delivery.write(queued, scheduled, config, scheduled_queues)
    end

    # `pool:` pushes to another Redis (a Store, options Hash or URL), in place
    # of the innermost via block's, or of the configuration's.
    def initialize(config: Deckhand.config, pool: nil)
      target = pool ? Target.for(pool, "Deckhand::Client.new(pool:)") : Thread.current[VIA]
      @config = target ? target.config_for(config) : config
    end

    # The configuration it pushes with: the one given, or for another Redis
    # (`pool:`, a via block) a RoutedConfig over it.
    attr_reader :config

    # Pushes one job; returns its jid, or nil when a client middleware stopped it.
    # "at" (epoch seconds) schedules it; a time already past enqueues it at once.
    # When the connection is lost after the push was sent, the
    # ConnectionError says the job may have been queued: Redis may have run
    # it before its reply was lost (docs/reliability.md).
    def push(item)
      item, by = PartitionKeys.split(item) if PartitionKeys.asked?(item)
      given = item.is_a?(Hash) ? (item["class"] || item[:class]) : nil
      job = Collapsing.resolve!(Payload.normalize(item, timestamps: @config.timestamps))
      PartitionKeys.own_queue!(job)
      at = scheduled_at(job.delete("at"))
      expiry(job, at)
      job = run_client_middleware(job, given) or return nil
      claim, at = CollapsedPush.claim(job, at, @config) if Collapsing.asked?(job) # no pair made for the others
      lock = unique_lock(job, at)
      seal(job)
      return CollapsedPush.new(@config).call([job], [at], [claim]).first if claim
      return LockedPush.new(@config).call([job], [at], [lock]).first if lock
      return Delivery.watched(@config, [job], [at]).first if job["unique_key"] || job["dedupe"]
      Delivery.enqueue(@config, [job], at && [at], by && [PartitionKeys.key(by, job["args"])])
      job["jid"]
    rescue ConnectionError => e
      raise @config.store.translation.lost_write(e, "The push of #{job["class"]} #{job["jid"]}")
    end

    # Pushes many jobs of one class: "args" is an Array of args Arrays, "at" an
    # optional time or Array of times. One Redis transaction per "batch_size"
    # jobs (default 1,000). Returns the jids, nil where a middleware stopped
    # one. When it cannot push them all, the error it raises carries
    # Deckhand::PushIncomplete: the jids Redis holds, the jobs it does not.
    def push_bulk(item)
      raise InvalidJob, "push_bulk needs a Hash with \"class\" and \"args\"" unless item.is_a?(Hash)
      item, by = PartitionKeys.split(item.transform_keys(&:to_s))
      batch_size = item.delete("batch_size") || BULK_BATCH
      raise InvalidJob, "push_bulk \"batch_size\" must be a positive Integer" unless batch_size.is_a?(Integer) && batch_size.positive?
      list = item.delete("args")
      unless list.is_a?(Array) && list.all?(Array)
        raise InvalidJob, "push_bulk \"args\" must be an Array of args Arrays, like [[1], [2]]; got #{list.inspect[0, 80]}"
      end
      ats = BulkTimes.new(item.delete("at"), item.delete("spread_interval")).for(list.size) { |at| scheduled_at(at) }
      if item.key?("jid")
        raise InvalidJob, "Explicitly passing 'jid' when pushing more than one job is not supported: each job gets its own" if list.size > 1
        return list.empty? ? [] : [push(item.merge("args" => list.first, "at" => ats&.first))]
      end
      base = PartitionKeys.own_queue!(Payload.normalize(item.merge("args" => []), timestamps: @config.timestamps))
      list.each_with_index { |args, i| Payload::Validator.check_args!(args, base["class"], item: i) } # nothing pushed if one is bad
      BulkPush.new(@config, item.except("args", "at"), list, ats, batch_size, by).call do |slice, slice_ats, jids|
        push_slice(base, slice, slice_ats, item["class"], by, jids)
      end
    end

    private

    def push_slice(base, slice, ats, given, by, jids)
      fast = by.nil? && client_chain.empty? && !Thread.current[COLLECTOR] && !Unique.ttl_seconds(base) && !base["expires_in"] && !base["encrypt"] &&
        !@config.fair_queues.by?(base["queue"]) && !Collapsing.asked?(base) # each job's tenant, and key, is its own
      return Delivery.encoded(@config, base, slice, ats, jids) if fast
      jobs = slice.each_with_index.map { |args, i| run_client_middleware(expiry(Collapsing.resolve!(base.merge("args" => args, "jid" => jids[i])), ats && ats[i]), given) }
      kept = jobs.each_index.select { |i| jobs[i] }
      return CollapsedPush.new(@config).slice(jobs, kept, ats) if kept.any? { |i| Collapsing.asked?(jobs[i]) }
      locks = kept.map { |i| unique_lock(jobs[i], ats && ats[i]) }
      kept.each { |i| seal(jobs[i]) }
      if !kept.empty? && locks.all?
        pushed = LockedPush.new(@config).call(kept.map { |i| jobs[i] }, kept.map { |i| ats && ats[i] }, locks)
        jids = Array.new(jobs.size)
        kept.each_with_index { |i, k| jids[i] = pushed[k] }
        return jids
      end
      if kept.any? { |i| jobs[i]["unique_key"] }
        pushed = Delivery.watched(@config, kept.map { |i| jobs[i] }, kept.map { |i| ats && ats[i] })
        return jobs.map { |job| job && pushed.shift }
      end
      keys = by && kept.map { |i| PartitionKeys.key(by, jobs[i]["args"]) }
      Delivery.enqueue(@config, kept.map { |i| jobs[i] }, ats && kept.map { |i| ats[i] }, keys)
      jobs.map { |job| job && job["jid"] }
    end

    # encrypt: true seals the last argument (Deckhand::Encryption), once the
    # unique lock's key is known (it digests the arguments in the clear).
    def seal(job)
      (job["encrypt"] == true) ? Encryption.seal!(job, @config.encryption_keys) : job
    end

    # expires_in (seconds) becomes the time the job must have started by
    # ("expires_at", epoch seconds): counted from its scheduled time when it
    # has one, so a retry keeps its first deadline.
    def expiry(job, at)
      seconds = job["expires_in"] or return job # most jobs: no type check on nil
      job["expires_at"] ||= ((at || Time.now.to_f) + seconds).round(3) if seconds.is_a?(Numeric)
      job
    end

    # The unique lock a job takes with its push, or nil. Locks are taken where
    # jobs are written to Redis: not while a batch collects its jobs; when a
    # pusher stands in between (push_after_commit), the job carries its lock's
    # key and Client.write takes it (see LockedPush#deferred).
    def unique_lock(job, at)
      return nil if Thread.current[COLLECTOR]
      lock = Unique.lock_for(job, at: at, layout: @config.layout)
      Client.pusher ? nil : lock
    end

    # `given` is the class as the push named it (a Class or a String).
    def run_client_middleware(job, given)
      chain = client_chain
      return job if chain.empty?
      pushed = nil
      chain.invoke(*middleware_arguments(given, job)) { pushed = job }
      pushed
    end

    # Client middleware is called with the job's class name, the job, its
    # queue and the store it goes to, unless Client.middleware_call says otherwise.
    def middleware_arguments(given, job)
      call = Client.middleware_call
      call ? call.call(given, job, @config) : [job["class"], job, job["queue"], @config.store]
    end

    # The client middleware this client runs (drop-in mode's Sidekiq::Client
    # may have a chain of its own).
    def client_chain = @config.client_middleware

    # A time to come is scheduled, one past is pushed now, by the
    # application's clock (Time.now, which a test may freeze), as Sidekiq
    # tells them apart.
    def scheduled_at(at)
      return nil if at.nil?
      raise InvalidJob, "\"at\" must be epoch seconds (a Numeric), got #{at.inspect}" unless at.is_a?(Numeric)
      at = at.to_f
      raise InvalidJob, "\"at\" is #{at}: schedule a job at a finite time (epoch seconds)" unless at.finite?
      (at > Time.now.to_f) ? at : nil
    end
  end
end
