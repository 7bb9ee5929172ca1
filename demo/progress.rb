# frozen_string_literal: true

require "deckhand/api"

module Demo
  # Shows the demo's progress from Redis until its work is done: processed,
  # failed, queued, scheduled, retrying and dead jobs, jobs in flight and a
  # smoothed rate. At a terminal it redraws one line; otherwise (a pipe, a
  # log file, CI) it writes a plain line every few seconds.
  #
  # Counts are the demo's own: differences from what the Redis held when the
  # demo began, and only the demo's queues, so a shared Redis's other jobs
  # neither show up nor keep the demo from finishing.
  #
  #   Progress.new(api, queues: QUEUES, expected: 3591, expected_dead: 10, server_pid: pid).run
  class Progress
    TICK = 0.5
    PLAIN_EVERY = 4 # ticks between plain lines
    SMOOTHING = 0.3 # weight of the newest rate sample

    def initialize(api, queues:, expected:, expected_dead:, server_pid:, batch: nil, tty: $stdout.tty?)
      @api = api
      @queues = queues
      @expected = expected
      @expected_dead = expected_dead
      @server_pid = server_pid
      @batch = batch
      @tty = tty
      @baseline = @api.stats
    end

    def run
      started = last_at = now
      last_processed = 0
      rate = nil
      (1..).each do |tick|
        sleep TICK
        state = read
        sample = (state[:processed] - last_processed) / (now - last_at)
        rate = rate ? SMOOTHING * sample + (1 - SMOOTHING) * rate : sample
        last_at = now
        last_processed = state[:processed]
        show(line(state, rate), tick)
        return finish(state, now - started) if done?(state)
        raise "the server exited early: see tmp/demo-server.log" if Process.waitpid(@server_pid, Process::WNOHANG)
      end
    end

    private

    def show(text, tick)
      if @tty
        print "\r#{text}\e[K"
      elsif (tick % PLAIN_EVERY).zero?
        puts text
      end
    end

    def read
      stats = @api.stats
      {processed: stats.processed - @baseline.processed, failed: stats.failed - @baseline.failed,
       queued: @queues.sum { |name| @api.queue(name).size },
       scheduled: [stats.scheduled - @baseline.scheduled, 0].max,
       retrying: [stats.retries - @baseline.retries, 0].max,
       dead: [stats.dead - @baseline.dead, 0].max,
       in_flight: @api.processes.select { |process| process.pid.to_i == @server_pid }.sum(&:busy)}
    end

    def line(s, rate)
      format("processed %5d  failed %4d  queued %5d  in flight %3d  scheduled %3d  retrying %3d  dead %2d  %6.0f jobs/s",
        s[:processed], s[:failed], s[:queued], s[:in_flight], s[:scheduled], s[:retrying], s[:dead], rate)
    end

    # Every job that should succeed has, and every one meant to die has died.
    def done?(s)
      s[:queued].zero? && s[:processed] - s[:failed] >= @expected && dead_so_far >= @expected_dead
    end

    def dead_so_far = @batch ? @batch.status.dead_jids.size : @expected_dead

    def finish(s, elapsed)
      puts if @tty
      puts "\nDone in #{elapsed.round(1)} s: #{s[:processed] - s[:failed]} jobs succeeded, #{s[:failed]} failures " \
        "(retried with backoff), #{dead_so_far} jobs in the dead set after exhausting their retries."
      report_batch if @batch
    end

    def report_batch
      status = @batch.status
      puts "Batch \"#{status.description}\" (#{status.bid}): #{status.total - status.pending} of #{status.total} " \
        "succeeded, #{status.dead_jids.size} died; its complete callback ran #{status.complete? ? "(see tmp/demo-server.log)" : "not yet"}."
    end

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
