# frozen_string_literal: true

module Sidekiq
  # Sidekiq::Queue in drop-in mode, on Deckhand::API::Queue.
  #
  #   queue = Sidekiq::Queue.new("mailers")
  #   queue.size; queue.latency; queue.paused?
  #   queue.each { |job| job.delete if job.args.first == 42 }   # newest first
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
    end

    # Live, as Sidekiq's (Deckhand's Queue remembers what it read).
    def size = fresh.size

    def latency = fresh.latency

    def paused? = fresh.paused?

    # Sidekiq Pro's pause API, which Deckhand has.
    def pause! = fresh.pause

    def unpause! = fresh.resume

    # Newest first, as Sidekiq's Queue#each reads the list from its left:
    # Deckhand's pages (in run order) from the last one back.
    def each
      queue = fresh
      pages = (queue.size + PAGE - 1) / PAGE
      pages.downto(1) do |page|
        queue.jobs(page: page, per_page: PAGE).reverse_each { |job| yield Entry.new(job, queue) }
      end
    end

    def find_job(jid) = find { |job| job.jid == jid }

    def clear = fresh.clear

    private

    def fresh = Deckhand::API.new(Deckhand::Client.current_config).queue(@name)

    public

    # A job in a queue; delete removes exactly it.
    class Entry < JobRecord
      def initialize(record, queue)
        super(record)
        @queue = queue
      end

      def delete = @queue.delete_job(jid, position: @record.position, level: @record.level)
    end
  end
end
