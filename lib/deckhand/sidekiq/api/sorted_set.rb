# frozen_string_literal: true

require "json"

module Sidekiq
  # Sidekiq's RetrySet, ScheduledSet and DeadSet in drop-in mode, on
  # Deckhand::API::JobSet.
  #
  #   Sidekiq::RetrySet.new.size
  #   Sidekiq::RetrySet.new.each { |job| job.retry if job.klass == "HardJob" }
  #   Sidekiq::DeadSet.new.find_job(jid)&.delete
  #   Sidekiq::RetrySet.new.fetch(score, jid).first&.reschedule(Time.now + 60)
  #   Sidekiq::DeadSet.new.kill(job_json, notify_failure: false)
  #   Sidekiq::ScheduledSet.new.clear
  #   Sidekiq::JobSet.new("failed").size   # a plugin's own sorted set, by its name
  class JobSet
    include Enumerable

    NAMES = {scheduled: "schedule", retries: "retry", dead: "dead"}.freeze

    # name: a sorted set's key, a String or a Symbol as Sidekiq takes it
    # (sidekiq-failures names :failed); Sidekiq's own three ("retry") are
    # Deckhand's sets, sharded per queue in cluster mode.
    def initialize(name)
      name = name.to_s
      @set_name = NAMES.key(name) || name
    end

    # Sidekiq's name for the set (its key in plain mode).
    def name = NAMES.fetch(@set_name) { @set_name }

    def size = job_set.size

    # Highest score first, as Sidekiq's sets (in cluster mode the queues'
    # shards merged as they are read).
    def each
      return enum_for(:each) unless block_given?
      set = job_set
      set.each_entry(reverse: true) { |entry| yield SortedEntry.of(entry, set) }
    end

    def find_job(jid)
      set = job_set
      set.find_jid(jid)&.then { |entry| SortedEntry.of(entry, set) }
    end

    # The entries at a score (or in a Range of scores), of one jid if given.
    def fetch(score, jid = nil)
      min, max = score.is_a?(Range) ? [score.begin || "-inf", score.end || "+inf"] : [score, score]
      set = job_set
      entries = set.in_scores(min, max).map { |entry| SortedEntry.of(entry, set) }
      jid ? entries.select { |entry| entry.jid == jid } : entries
    end

    # Removes the entry with this score and jid; true if there was one.
    def delete(score, jid)
      raise ArgumentError, "#{self.class}#delete needs the entry's score and jid: delete(score, jid)" if jid.nil?
      entries = fetch(score, jid)
      !entries.empty? && entries.all?(&:delete)
    end

    alias_method :delete_by_jid, :delete

    # Entries whose JSON matches `match`, with Sidekiq's `*` wildcards
    # ("*Timeout*"); an Enumerator without a block.
    def scan(match, _count = 100)
      return enum_for(:scan, match) unless block_given?
      pattern = Regexp.new(match.to_s.split("*", -1).map { |part| Regexp.escape(part) }.join(".*"))
      needle = match.to_s.split("*").max_by(&:size).to_s
      set = job_set
      found = needle.empty? ? set.each_entry.to_a : set.filter(needle, limit: 10_000, budget: 1_000_000).first
      found.each { |entry| yield SortedEntry.of(entry, set) if pattern.match?(entry.raw) }
    end

    # Adds a job (a Hash or its JSON) to the set at `timestamp`.
    def schedule(timestamp, message)
      job_set.add(message.is_a?(String) ? message : JSON.generate(message), timestamp.to_f)
      true
    end

    def clear = job_set.delete_all

    def retry_all = job_set.retry_all

    def kill_all = job_set.kill_all

    # The set in the Redis of the Client.via block around the call, if any
    # (Sidekiq's API reads through Sidekiq.redis, which follows via).
    private def job_set = Deckhand::API.new(Deckhand::Client.current_config).job_set(@set_name)
  end

  class RetrySet < JobSet
    def initialize = super(NAMES[:retries])
  end

  class ScheduledSet < JobSet
    def initialize = super(NAMES[:scheduled])
  end

  class DeadSet < JobSet
    def initialize = super(NAMES[:dead])

    # Adds a job (its JSON) to the dead set, trimmed as a death trims it;
    # the death handlers hear of it with `ex:` (a "Job killed by API"
    # RuntimeError by default) unless notify_failure: false. Dated, and the
    # set trimmed, by the caller's clock (Time.now), as Sidekiq's kill is:
    # a test that travels in time kills in its own present.
    def kill(message, opts = {})
      error = opts[:ex] || RuntimeError.new("Job killed by API")
      job_set.bury(message, error: error, notify: opts[:notify_failure] != false, now: Time.now.to_f)
      true
    end
  end

  # A job in one of the sets, with the actions on it. The sets build theirs
  # with SortedEntry.of; `new` takes Sidekiq's arguments (the set or nil,
  # the score, the job's JSON or Hash), which a plugin may wrap by
  # redefining #initialize (sidekiq-failures does) without the sets noticing.
  #
  #   entry = Sidekiq::SortedEntry.new(nil, 1_700_000_000.0, json)
  #   entry.score   # => 1700000000.0
  class SortedEntry < JobRecord
    def self.of(entry, set) = allocate.tap { |sorted| sorted.send(:bind, entry, set) }

    def initialize(parent, score, item)
      raw = item.is_a?(String) ? item : JSON.generate(item)
      bind(Deckhand::API::SetEntry.new(raw, Float(score)), parent&.send(:job_set))
    end

    # The set it came from (nil for one built by hand).
    def parent = @set

    private def bind(entry, set)
      @record = entry
      @queue_name = nil
      @set = set
      # Sidekiq's ivar for the job's Hash, which plugins reach (the same Hash).
      @item = entry.item
    end

    def score = @record.score

    def at = @record.at

    def delete = @set.delete([@record]).positive?

    def retry = @set.retry([@record]).positive?

    alias_method :add_to_queue, :retry

    def kill = @set.kill([@record]).positive?

    # Due (or died) at another time; this entry reads its new score, as in Sidekiq 8.
    def reschedule(at)
      result = @set.reschedule(@record, at)
      @record = Deckhand::API::SetEntry.new(@record.raw, at.to_f, rank: @record.rank, shard: @record.shard)
      result
    end
  end
end
