# frozen_string_literal: true

module Sidekiq
  # Sidekiq's RetrySet, ScheduledSet and DeadSet in drop-in mode, on
  # Deckhand::API::JobSet.
  #
  #   Sidekiq::RetrySet.new.size
  #   Sidekiq::RetrySet.new.each { |job| job.retry if job.klass == "HardJob" }
  #   Sidekiq::DeadSet.new.find_job(jid)&.delete
  #   Sidekiq::ScheduledSet.new.clear
  class JobSet
    include Enumerable

    def initialize(name)
      @set = Deckhand::API.new.job_set(name)
    end

    def name = @set.name.to_s

    def size = @set.size

    # In the set's order, each entry read once (in cluster mode the queues'
    # shards merged as they are read).
    def each
      return enum_for(:each) unless block_given?
      @set.each_entry { |entry| yield SortedEntry.new(entry, @set) }
    end

    def find_job(jid) = @set.find_jid(jid)&.then { |entry| SortedEntry.new(entry, @set) }

    # Entries whose JSON contains `text` (Sidekiq's scan takes a pattern; this a substring).
    def scan(text)
      found, = @set.filter(text.to_s.delete("*"), limit: 1_000)
      found.map { |entry| SortedEntry.new(entry, @set) }
    end

    def clear = @set.delete_all

    def retry_all = @set.retry_all

    def kill_all = @set.kill_all
  end

  class RetrySet < JobSet
    def initialize = super(:retries)
  end

  class ScheduledSet < JobSet
    def initialize = super(:scheduled)
  end

  class DeadSet < JobSet
    def initialize = super(:dead)
  end

  # A job in one of the sets, with the actions on it.
  class SortedEntry < JobRecord
    def initialize(entry, set)
      super(entry)
      @set = set
    end

    def score = @record.score

    def at = @record.at

    def delete = @set.delete([@record]).positive?

    def retry = @set.retry([@record]).positive?

    alias_method :add_to_queue, :retry

    def kill = @set.kill([@record]).positive?
  end
end
