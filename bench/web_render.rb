# frozen_string_literal: true

# Dashboard render times at scale: `ruby bench/web_render.rb [--runs N]`.
#
# Starts a private redis-server, fills it like a busy production system (one
# queue of 1,000,000 jobs, 100,000 jobs in the retry set with compressed
# backtraces, 10,000 scheduled and 10,000 dead, 20 more queues, 10 processes
# running 100 jobs, a year of daily stats, 72 hours of per-minute metrics for
# 20 job classes, 10,000 batches and one with 100,000 failing jobs), then renders each page through the Rack app in this process
# and prints the median, p95 and worst time of N renders (after 3 warm-ups).
# A page is over budget when its median reaches 100 ms; the exit status says
# whether any was.
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "deckhand"
require "deckhand/web"
require "deckhand/dev_redis"
require "optparse"
require "tmpdir"
require_relative "web_render_batches"

module WebRenderBench
  QUEUE_JOBS = 1_000_000
  RETRIES = 100_000
  SCHEDULED = 10_000
  DEAD = 10_000
  CLASSES = (1..20).map { |i| "App::Jobs::Worker#{i}Job" }.freeze
  BUDGET_MS = 100.0

  module_function

  def run(runs)
    Dir.mktmpdir("deckhand-bench-web") do |dir|
      redis = Deckhand::DevRedis.start(dir: dir, persistent: false)
      begin
        Deckhand.config = Deckhand::Config.new(redis: {url: redis.url, timeout: 10}) # seeding on a busy machine
        store = Deckhand.config.store
        seconds = timed { seed(store) }
        puts format("seeded in %.1f s; Redis used_memory %s", seconds, store.call("INFO", "memory")[/used_memory_human:(\S+)/, 1])
        ok = report(measure(pages(store), runs), store, runs)
        bulk(Deckhand::API.new(Deckhand.config))
        ok
      ensure
        redis.stop
      end
    end
  end

  def timed
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  end

  def job(klass, queue, i, now, **extra)
    JSON.generate({"class" => klass, "args" => [i, "user-#{i}@example.com", {"plan" => "pro", "attempt" => i % 5}],
                   "jid" => format("%024x", i), "queue" => queue, "retry" => true,
                   "created_at" => now - 60_000, "enqueued_at" => now - 30_000}.merge(extra))
  end

  def seed(store)
    now = Deckhand::Payload.now
    (0...QUEUE_JOBS).each_slice(10_000) do |slice|
      store.pipelined { |pipe| pipe.call("LPUSH", "queue:default", *slice.map { |i| job(CLASSES[i % 20], "default", i, now) }) }
    end
    store.pipelined do |pipe|
      pipe.call("SADD", "queues", "default")
      20.times do |q|
        pipe.call("SADD", "queues", "queue-#{q}")
        pipe.call("LPUSH", "queue:queue-#{q}", *(1..50).map { |i| job(CLASSES[q], "queue-#{q}", i, now) })
      end
    end
    seed_sets(store, now)
    seed_processes(store, now)
    seed_history(store)
    seed_metrics(store)
    WebRenderBatches.seed(store)
  end

  def seed_sets(store, now)
    trace = Deckhand::Payload::Backtrace.compress((1..25).map { |n| "/app/vendor/bundle/gems/net-http/lib/net/http.rb:#{n * 37}:in `transport_request'" })
    at = Time.now.to_f
    failure = {"error_class" => "Net::ReadTimeout", "error_message" => "Net::ReadTimeout with #<TCPSocket:(closed)>",
               "failed_at" => now - 3_600_000, "retry_count" => 3, "error_backtrace" => trace}
    failure.delete("retry_count")
    (0...RETRIES).each_slice(5_000) do |slice|
      store.call("ZADD", "retry", *slice.flat_map { |i| [at + i, job(CLASSES[i % 20], "default", i, now, "retry_count" => i % 25, **failure)] })
    end
    (0...SCHEDULED).each_slice(5_000) do |slice|
      store.call("ZADD", "schedule", *slice.flat_map { |i| [at + (i * 10), job(CLASSES[i % 20], "default", i, now)] })
    end
    (0...DEAD).each_slice(5_000) do |slice|
      store.call("ZADD", "dead", *slice.flat_map { |i| [at - i, job(CLASSES[i % 20], "default", i, now, "retry_count" => 25, **failure)] })
    end
  end

  def seed_processes(store, now)
    store.pipelined do |pipe|
      10.times do |p|
        identity = "worker-#{p}:#{1000 + p}:#{format("%012x", p)}"
        info = {"hostname" => "worker-#{p}", "pid" => 1000 + p, "concurrency" => 10, "queues" => ["default"], "started_at" => Time.now.to_f - 3600}
        pipe.call("SADD", "processes", identity)
        pipe.call("HSET", identity, "info", JSON.generate(info), "busy", "10", "beat", Time.now.to_f.to_s, "quiet", "false", "rss", "250000")
        10.times do |t|
          pipe.call("HSET", "#{identity}:work", "tid-#{t}", JSON.generate("queue" => "default", "payload" => job(CLASSES[t], "default", t, now), "run_at" => Time.now.to_i - t))
        end
      end
    end
  end

  def seed_history(store)
    today = Time.now.utc
    store.pipelined do |pipe|
      366.times do |d|
        date = (today - (d * 86_400)).strftime("%Y-%m-%d")
        pipe.call("SET", "stat:processed:#{date}", 1_000_000 + (d * 997))
        pipe.call("SET", "stat:failed:#{date}", 1_000 + d)
      end
      pipe.call("SET", "stat:processed", 400_000_000)
      pipe.call("SET", "stat:failed", 400_000)
    end
  end

  # 72 hours of minutes and a year of days, 20 classes each, as heartbeats write them.
  def seed_metrics(store)
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    now = Time.now
    fill = lambda do
      CLASSES.each_with_index { |klass, c| 6.times { |n| tally.record(klass, (c + 1) * (1.5**n), n == 5) } }
      tally.take
    end
    (0...(72 * 60)).each_slice(60) do |minutes|
      store.pipelined { |pipe| minutes.each { |m| Deckhand::Store::Records::ExecutionMetrics.flush(pipe, fill.call, now: now - (m * 60)) } }
    end
    store.pipelined { |pipe| (3..365).each { |d| Deckhand::Store::Records::ExecutionMetrics.flush(pipe, fill.call, now: now - (d * 86_400)) } }
  end

  def pages(store)
    api = Deckhand::API.new(Deckhand.config)
    retry_key = ERB::Util.url_encode(api.retries.page(1000, 25).first.key)
    last_queue_page = (QUEUE_JOBS + 24) / 25
    [
      "/", "/?days=365", "/stats.json", "/busy", "/queues", "/queues/default", "/queues/default?page=#{last_queue_page / 2}",
      "/queues/default?page=#{last_queue_page}", "/retries", "/retries?page=2000", "/retries?page=4000&per_page=25",
      "/retries?q=Worker7Job", "/retries?q=no-such-text", "/retries/#{retry_key}", "/scheduled", "/dead",
      "/retries?view=groups", "/dead?view=groups", "/dead?q=Worker7Job", "/find?jid=#{format("%024x", 5)}",
      "/find?jid=user-5@example.com", "/find?jid=no-such-argument",
      "/metrics", "/metrics?period=4h", "/metrics?period=72h", "/metrics?period=365d",
      "/metrics/App::Jobs::Worker3Job?period=4h", "/metrics/App::Jobs::Worker3Job?period=365d",
      *WebRenderBatches.pages(Deckhand.config)
    ]
  end

  def measure(paths, runs)
    app = Rack::MockRequest.new(Deckhand::Web.new(config: Deckhand.config))
    paths.map do |path|
      3.times { check(app.get(path), path) }
      times = Array.new(runs) { timed { check(app.get(path), path) } * 1000 }.sort
      [path, times[times.size / 2], times[(times.size * 0.95).ceil - 1], times.last]
    end
  end

  # Not pages, but what a click on the retry page costs at this size.
  def bulk(api)
    found = nil
    seconds = timed { found = api.retries.find_jid(format("%024x", RETRIES - 1)) }
    puts format("find a jid among %d retries (the last one): %.0f ms%s", RETRIES, seconds * 1000, found ? "" : " (NOT FOUND)")
    app = Rack::MockRequest.new(Deckhand::Web.new(config: Deckhand.config))
    {"confirm page for all matches of a filter (counts the 100,000)" => "/retries?q=Worker7Job&confirm=delete",
     "grouped view of the whole retry set" => "/retries?view=groups&whole=1"}.each do |what, path|
      seconds = timed { check(app.get(path), path) }
      puts format("%s: %.0f ms", what, seconds * 1000)
    end
    moved = 0
    seconds = timed { moved = api.retries.retry_matching("Worker7Job") }
    puts format("retry all %d matches of a filter among %d retries: %.2f s", moved, RETRIES, seconds)
    seconds = timed { moved = api.retries.retry_all }
    puts format("retry all %d retries: %.2f s (%d moved)", RETRIES, seconds, moved)
  end

  def check(response, path)
    # /find redirects to a job, or says it found none (404)
    ok = [200, 303].include?(response.status) || (response.status == 404 && path.start_with?("/find"))
    raise "#{path} answered #{response.status}: #{response.body[0, 200]}" unless ok
  end

  def report(rows, store, runs)
    version = Deckhand::DevRedis.server_version(store.call("INFO", "server"))
    puts "Ruby #{RUBY_VERSION}#{" +YJIT" if defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?}, #{version}, " \
      "#{Etc.nprocessors} cores; #{runs} renders per page, in process (Rack::MockRequest)"
    puts "#{"page".ljust(48)} median ms    p95 ms    max ms"
    over = rows.select { |_, median| median >= BUDGET_MS }
    rows.each { |path, median, p95, max| puts format("%-48s %9.1f %9.1f %9.1f%s", path[0, 48], median, p95, max, (median >= BUDGET_MS) ? "  OVER" : "") }
    puts over.empty? ? "every page under #{BUDGET_MS.round} ms (median)" : "#{over.size} pages over #{BUDGET_MS.round} ms"
    over.empty?
  end
end

runs = 20
OptionParser.new { |o| o.on("--runs N", Integer, "renders per page (default 20)") { |n| runs = n } }.parse!
require "etc"
exit(WebRenderBench.run(runs) ? 0 : 1)
