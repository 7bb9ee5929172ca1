# frozen_string_literal: true

module Sidekiq
  # Sidekiq::Queue in drop-in mode, on Deckhand::API::Queue.
  #
  #   queue = Sidekiq::Queue.new("mailers")
  #   queue.size; queue.latency; queue.paused?
  #   queue.each { |job| job.delete if job.args.first == 42 }
  #   queue.find_job(jid)&.delete
  #   queue.clear
  #   Sidekiq::Queue.all.map(&:name)
  class Queue
    include Enumerable

    PAGE = 100

    def self.all = Deckhand::API.new.queues.map { |queue| new(queue.name) }

    attr_reader :name

    def initialize(name = "default")
      @name = name.to_s
      @queue = Deckhand::API.new.queue(@name)
    end

    def size = @queue.size

    def latency = @queue.latency

    def paused? = Deckhand::API.new.queue(@name).paused?

    # Sidekiq Pro's pause API, which Deckhand has.
    def pause! = @queue.pause

    def unpause! = @queue.resume

    # Jobs in the order they run, a page at a time.
    def each
      page = 1
      loop do
        jobs = @queue.jobs(page: page, per_page: PAGE)
        jobs.each { |job| yield Entry.new(job, @queue) }
        break if jobs.size < PAGE
        page += 1
      end
    end

    def find_job(jid) = find { |job| job.jid == jid }

    def clear = @queue.clear

    # A job in a queue; delete removes exactly it.
    class Entry < JobRecord
      def initialize(record, queue)
        super(record)
        @queue = queue
      end

      def delete = @queue.delete_job(jid, position: @record.position)
    end
  end
end
