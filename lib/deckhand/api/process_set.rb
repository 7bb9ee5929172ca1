# frozen_string_literal: true

require_relative "process_info"
require_relative "running_job"

module Deckhand
  class API
    # The live server processes and what their threads are running.
    #
    #   set = api.processes
    #   set.each { |p| puts "#{p.hostname} #{p.busy}/#{p.concurrency}" }
    #   set.running     # => [RunningJob, ...]
    #   set.quiet_all!
    class ProcessSet
      FIELDS = %w[info busy beat quiet rss rtt_us].freeze

      include Enumerable

      def initialize(config)
        @store = config.store
        @processes = load
      end

      def each(&) = @processes.each(&)

      def size = @processes.size

      def find(identity) = @processes.find { |process| process.identity == identity }

      def quiet_all! = each(&:quiet!)

      def stop_all! = each(&:stop!)

      # The jobs running now in every process, longest-running first.
      def running
        return [] if @processes.empty?
        works = @store.pipelined do |pipe|
          @processes.each { |process| pipe.call("HGETALL", Store::Keys.work(process.identity)) }
        end
        list = @processes.zip(works).flat_map do |process, work|
          work.map { |thread, raw| RunningJob.new(process.identity, thread, raw) }
        end
        list.sort_by { |job| job.run_at.to_f }
      end

      private

      # A process whose record expired (it died without cleaning up) is dropped
      # from the set here, as Sidekiq does; a live one re-adds itself each beat.
      def load
        identities = @store.call("SMEMBERS", Store::Keys::PROCESSES).sort
        return [] if identities.empty?
        replies = @store.pipelined do |pipe|
          identities.each do |identity|
            pipe.call("HMGET", Store::Keys.process(identity), *FIELDS)
            pipe.call("HGET", Store::Keys.process(identity), "inflight")
          end
        end
        gone = []
        found = identities.each_with_index.filter_map do |identity, i|
          fields = replies[2 * i]
          if fields.first.nil?
            gone << identity
            next
          end
          ProcessInfo.new(identity, fields, replies[(2 * i) + 1], store: @store)
        end
        @store.call("SREM", Store::Keys::PROCESSES, *gone) unless gone.empty?
        found
      end
    end
  end
end
