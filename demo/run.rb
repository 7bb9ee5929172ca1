# frozen_string_literal: true

# bin/demo: pushes a few thousand sample jobs, runs a Deckhand server on them
# and the dashboard beside it, and shows the progress until the work is done
# (or Ctrl-C).
#
# Its Redis is its own: a private redis-server under tmp/demo-redis on a free
# port, stopped at the end, unless it is pointed at one (bin/demo --redis URL,
# or REDIS_URL). Pointed at a Redis, it uses queues of its own (demo-*) and
# deletes nothing: a development Redis shared with other work keeps it.
$stdout.sync = true
require "optparse"
require "fileutils"
require "deckhand"
require "deckhand/dev_redis"
require "deckhand/api"
require_relative "jobs"
require_relative "progress"
require_relative "dashboard"

module Demo
  ROOT = File.expand_path("..", __dir__)
  PRIVATE_DIR = File.join(ROOT, "tmp/demo-redis")

  module_function

  def run(argv)
    redis = choose_redis(options(argv)[:redis] || ENV["REDIS_URL"])
    api = Deckhand::API.new
    refuse_busy_queues(api)
    expected, batch = enqueue
    server = spawn_server
    dashboard = Dashboard.new(ROOT).start
    puts
    Progress.new(api, queues: QUEUES, expected: expected, expected_dead: 10, server_pid: server, batch: batch).run
    puts "Left on #{ENV["REDIS_URL"]}: the demo's 10 dead webhooks (queue demo-webhooks) in the dead set, and its counts in the stats; delete them from the dashboard's Dead page." unless redis
    linger(dashboard)
  ensure
    dashboard&.stop
    stop_server(server)
    redis&.stop
  end

  def options(argv)
    options = {}
    OptionParser.new do |p|
      p.banner = "Usage: bin/demo [--redis URL]"
      p.on("--redis URL", "Run on this Redis (queues demo-*; nothing of yours is deleted). Default: a private redis-server") { |v| options[:redis] = v }
    end.parse!(argv.dup)
    options
  end

  # A Redis given explicitly, or a fresh private one. Never a Redis that
  # merely happens to answer on 127.0.0.1:6379.
  def choose_redis(url)
    redis = nil
    if url && !url.empty?
      puts "Redis: #{url} (given; the demo uses its own queues #{QUEUES.join(", ")} and deletes nothing)"
    else
      FileUtils.rm_rf(PRIVATE_DIR) # the demo's own directory, from an earlier run
      redis = Deckhand::DevRedis.start(dir: PRIVATE_DIR, persistent: false)
      url = redis.url
      puts "Redis: #{url} (a private redis-server for the demo, stopped when it ends; bin/demo --redis URL uses another)"
    end
    ENV["REDIS_URL"] = url # the demo's server and dashboard inherit it
    Deckhand.config = Deckhand::Config.new(redis: {url: url})
    redis
  end

  # Jobs already waiting in the demo's queues would be run and miscounted.
  def refuse_busy_queues(api)
    busy = QUEUES.select { |name| api.queue(name).size.positive? }
    return if busy.empty?
    raise Deckhand::ConfigError, "the queues #{busy.join(", ")} on #{ENV["REDIS_URL"]} already hold jobs (an earlier " \
      "demo that was stopped?); the demo leaves them alone: clear them from the dashboard, or run bin/demo without --redis"
  end

  # At a terminal, the dashboard stays up to be explored until Ctrl-C; run
  # from a script (no terminal), the demo ends with its work.
  def linger(dashboard)
    return unless $stdin.tty? && dashboard
    puts "\nThe dashboard stays up: open #{dashboard.url} (Ctrl-C to stop)."
    sleep
  end

  # Returns how many jobs should eventually succeed, and the webhooks' batch.
  def enqueue
    ChecksumJob.perform_bulk(Array.new(3000) { |i| [i, [{"qty" => 2, "price_cents" => 1999}, {"qty" => 1, "price_cents" => 500}]] })
    DeliverEmailJob.perform_bulk(Array.new(400) { |i| ["user#{i}@example.com", 50 + (i % 5) * 25] })
    batch = Deckhand::Batch.new
    batch.description = "Deliver 100 webhooks"
    batch.callback_queue = "demo-default"
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
  Demo.run(ARGV)
rescue Interrupt
  puts "\nStopped."
rescue Deckhand::ConfigError, Deckhand::ConnectionError, OptionParser::ParseError => e
  warn "bin/demo: #{e.message}"
  exit 1
end
