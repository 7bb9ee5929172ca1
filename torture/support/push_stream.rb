# frozen_string_literal: true

module Torture
  # A steady stream of pushes, one job at a time, from a thread, with the
  # outcome of every push: acknowledged (the push returned a jid), not
  # replicated (it raised Deckhand::NotReplicated: the job is in the primary,
  # the caller was told it may not survive a failover) or failed (it raised
  # anything else: the caller knows it may not have happened).
  #
  #   stream = PushStream.new(client, %w[a b c], pause: 0.002).start
  #   stream = PushStream.new(client, %w[a], pause: 0.005, job: ->(n) { {"class" => "Torture::ClockJob", "args" => [n]} })
  #   stream.stop
  #   stream.acked            # => [[jid, queue, epoch seconds of the return], ...]
  #   stream.first(queue: "a", after: killed_at)  # => epoch seconds of the first push Redis took, or nil
  class PushStream
    Push = Struct.new(:jid, :queue, :at, :outcome)

    WORK = ->(_n) { {"class" => "Torture::WorkJob", "args" => [1]} }

    # job: given the push's number, the job to push (its class and args).
    def initialize(client, queues, pause:, job: WORK)
      @client = client
      @job = job
      @queues = queues
      @pause = pause
      @pushes = []
      @lock = Mutex.new
      @running = true
    end

    def start
      @thread = Thread.new do
        count = 0
        while @running
          push(@queues[count % @queues.size], count)
          count += 1
          sleep @pause
        end
      end
      self
    end

    def stop
      @running = false
      @thread&.join
      self
    end

    def pushes = @lock.synchronize { @pushes.dup }

    def acked = outcomes(:acked)

    def unreplicated = outcomes(:unreplicated)

    def failed = outcomes(:failed)

    # When a push to `queue` after `after` first ended in one of `outcomes`
    # (by default: Redis took it, acknowledged or not replicated).
    def first(queue:, after:, outcomes: %i[acked unreplicated])
      pushes.find { |p| p.queue == queue && p.at > after && outcomes.include?(p.outcome) }&.at
    end

    private

    def outcomes(kind) = pushes.select { |p| p.outcome == kind }

    def push(queue, count)
      jid = @client.push(@job.call(count).merge("queue" => queue))
      record(jid, queue, :acked)
    rescue Deckhand::NotReplicated => e
      record(e.jids&.first, queue, :unreplicated)
    rescue Deckhand::Error
      record(nil, queue, :failed)
      sleep 0.01
    end

    def record(jid, queue, outcome)
      @lock.synchronize { @pushes << Push.new(jid, queue, Time.now.to_f, outcome) }
    end
  end
end
