# frozen_string_literal: true

# bin/demo: pushes a few thousand sample jobs, runs a Deckhand server on them
# and the dashboard beside it, and shows the progress until the work is done
# (or Ctrl-C).
$stdout.sync = true
require "deckhand"
require "deckhand/dev_redis"
require_relative "jobs"
require_relative "progress"
require_relative "dashboard"

module Demo
  ROOT = File.expand_path("..", __dir__)

  module_function

  def run
    redis = ensure_redis
    store = Deckhand.config.store
    store.call("DEL", "queue:default", "queue:mailers", "queue:webhooks", "schedule", "retry", "dead",
      "stat:processed", "stat:failed")
    expected, batch = enqueue
    server = spawn_server
    dashboard = Dashboard.new(ROOT).start
    puts
    Progress.new(store, expected: expected, server_pid: server, batch: batch).run
    linger(dashboard)
  ensure
    dashboard&.stop
    stop_server(server)
    redis&.stop
  end

  # At a terminal, the dashboard stays up to be explored until Ctrl-C; run
  # from a script (no terminal), the demo ends with its work.
  def linger(dashboard)
    return unless $stdin.tty? && dashboard
    puts "\nThe dashboard stays up: open #{dashboard.url} (Ctrl-C to stop)."
    sleep
  end

  def ensure_redis
    return nil if ENV["REDIS_URL"] && !ENV["REDIS_URL"].empty?
    if Deckhand::DevRedis.answering?
      ENV["REDIS_URL"] = "redis://127.0.0.1:6379/0"
      puts "Using the Redis on 127.0.0.1:6379 (set REDIS_URL to use another)."
      return nil
    end
    redis = Deckhand::DevRedis.start(dir: File.join(ROOT, "tmp/demo-redis"))
    ENV["REDIS_URL"] = redis.url
    puts "No Redis configured: started a private redis-server at #{redis.url} (stopped when the demo ends)."
    redis
  ensure
    Deckhand.config = Deckhand::Config.new(redis: Deckhand.default_redis)
  end

  # Returns how many jobs should eventually succeed, and the webhooks' batch.
  def enqueue
    ChecksumJob.perform_bulk(Array.new(3000) { |i| [i, [{"qty" => 2, "price_cents" => 1999}, {"qty" => 1, "price_cents" => 500}]] })
    DeliverEmailJob.perform_bulk(Array.new(400) { |i| ["user#{i}@example.com", 50 + (i % 5) * 25] })
    batch = Deckhand::Batch.new
    batch.description = "Deliver 100 webhooks"
    batch.on(:complete, WebhookReport, "what" => "100 webhooks")
    batch.jobs { FlakyWebhookJob.perform_bulk(Array.new(100) { |i| [i] }) }
    ReminderJob.perform_bulk(Array.new(50) { |i| [i] })
    50.times { |i| ReminderJob.perform_in(2 + i % 5, i) }
    puts "Enqueued 3,000 fast jobs, 400 emails (50–150 ms each), a batch of 100 flaky webhooks (some retry, 10 die) " \
      "and 100 reminders (50 now, 50 in 2–6 s)."
    # The batch's complete callback is a job too.
    [3000 + 400 + 90 + 100 + 1, batch]
  end

  def spawn_server
    cmd = [RbConfig.ruby, File.join(ROOT, "exe/deckhand"), "-r", File.join(ROOT, "demo/jobs.rb"),
      "-C", File.join(ROOT, "demo/deckhand.yml")]
    log = File.join(ROOT, "tmp/demo-server.log")
    puts "Starting `deckhand -r demo/jobs.rb -C demo/deckhand.yml` (log: tmp/demo-server.log)"
    Process.spawn(*cmd, out: log, err: log)
  end

  def stop_server(pid)
    return unless pid
    Process.kill("TERM", pid)
    Process.wait(pid)
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  end
end

Dir.chdir(Demo::ROOT) { FileUtils.mkdir_p("tmp") }
begin
  Demo.run
rescue Interrupt
  puts "\nStopped."
end
