# frozen_string_literal: true

module Deckhand
  module DropIn
    # Sidekiq::Processor::WORK_STATE in drop-in mode: the jobs this process
    # runs, thread id => {queue:, payload:, run_at:}, as Sidekiq's shared
    # work state holds them. Its own entries are what Sidekiq::Processor (and
    # a plugin or a test) set; the jobs of the Deckhand servers of this
    # process that it watches (Sidekiq::Launcher watches its own) are read
    # from their activity each time, so `size` counts every running job, as
    # the process title's "[3 of 10 busy]" does.
    #
    #   WORK_STATE.set("abc", {queue: "default", payload: json, run_at: Time.now.to_i})
    #   WORK_STATE.size   # => 1, and the jobs of the servers it watches
    #   WORK_STATE.own    # => {"abc" => {...}}, without them
    class WorkState
      def initialize
        @entries = {}
        @watched = []
        @lock = Mutex.new
      end

      def set(tid, hash) = @lock.synchronize { @entries[tid] = hash }

      def delete(tid) = @lock.synchronize { @entries.delete(tid) }

      # Forgets its own entries; a watched server's jobs stay until they end.
      def clear = @lock.synchronize { @entries.clear }

      # A copy of every entry, the watched servers' jobs included.
      def dup = own.merge(served)

      def size = dup.size

      def each(&) = dup.each(&)

      # The entries set here only (what Sidekiq::Processor runs).
      def own = @lock.synchronize { @entries.dup }

      # Counts the jobs a server's activity (Server::Chores::Activity) runs. One whose
      # own `running` includes these entries (SidekiqActivity) is read
      # through `server_running`.
      def watch(activity) = @lock.synchronize { @watched << activity unless @watched.include?(activity) }

      def unwatch(activity) = @lock.synchronize { @watched.delete(activity) }

      private

      def served
        activities = @lock.synchronize { @watched.dup }
        activities.each_with_object({}) do |activity, all|
          jobs = activity.respond_to?(:server_running) ? activity.server_running : activity.running
          jobs.each { |tid, job| all[tid] = {queue: job.queue, payload: job.payload, run_at: job.run_at} }
        end
      end
    end
  end
end
