# frozen_string_literal: true

module Demo
  # Draws one status line a second from Redis: processed, failed, queued,
  # scheduled and retrying jobs, and throughput. Returns when all is done.
  class Progress
    def initialize(store, expected:, server_pid:, batch: nil)
      @store = store
      @expected = expected
      @server_pid = server_pid
      @batch = batch
    end

    def run
      started = now
      last = [now, 0]
      loop do
        sleep 0.5
        state = read
        rate = (state[:processed] - last[1]) / (now - last[0])
        last = [now, state[:processed]]
        print "\r#{line(state, rate)}\e[K"
        return finish(state, now - started) if done?(state)
        raise "the server exited early: see tmp/demo-server.log" if Process.waitpid(@server_pid, Process::WNOHANG)
      end
    end

    private

    def read
      processed, failed, default, mailers, webhooks, scheduled, retrying, dead = @store.pipelined do |p|
        p.call("GET", "stat:processed")
        p.call("GET", "stat:failed")
        %w[default mailers webhooks].each { |q| p.call("LLEN", "queue:#{q}") }
        p.call("ZCARD", "schedule")
        p.call("ZCARD", "retry")
        p.call("ZCARD", "dead")
      end
      {processed: processed.to_i, failed: failed.to_i, queued: default + mailers + webhooks,
       scheduled: scheduled, retrying: retrying, dead: dead}
    end

    def line(s, rate)
      format("processed %5d  failed %4d  queued %5d  scheduled %3d  retrying %3d  dead %2d  %7.0f jobs/s",
        s[:processed], s[:failed], s[:queued], s[:scheduled], s[:retrying], s[:dead], rate)
    end

    def done?(s) = s[:queued].zero? && s[:scheduled].zero? && s[:retrying].zero? && s[:processed] - s[:failed] >= @expected

    def finish(s, elapsed)
      puts "\n\nDone in #{elapsed.round(1)} s: #{s[:processed] - s[:failed]} jobs succeeded, #{s[:failed]} failures " \
        "(retried with backoff), #{s[:dead]} jobs in the dead set after exhausting their retries."
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
