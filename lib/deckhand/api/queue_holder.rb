# frozen_string_literal: true

module Deckhand
  class API
    # One job class holding a queue (API::QueueHolders): how many of its jobs
    # run now and for how long the longest has run, how many wait in the
    # sample of the queue's head and how long the oldest of them has waited;
    # each count with its share (0.0 to 1.0) of the running or sampled jobs.
    #
    #   holder = api.queue("reports").holders.list.first
    #   [holder.name, holder.running, holder.running_share, holder.running_for]   # => ["ReportJob", 10, 1.0, 412.3]
    #   [holder.waiting, holder.waiting_share, holder.waiting_for]                # => [14, 1.0, 380.0]
    QueueHolder = Struct.new(:name, :running, :running_share, :running_for, :waiting, :waiting_share, :waiting_for, keyword_init: true)
  end
end
