# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_server_files_test.rb starts it):
# the files of Sidekiq's server that applications and plugins require. Those
# that Deckhand runs its own way name their classes and refuse to be built;
# the rest (retries, the scheduler's poll, metrics, deploy marks, the
# iterable enumerators, the I18n middleware) run on Deckhand's machinery.
require "minitest/autorun"
require "minitest/mock"
require "json"
require "csv"
require "tmpdir"
require "sidekiq"
%w[sidekiq/fetch sidekiq/processor sidekiq/manager sidekiq/launcher sidekiq/scheduled sidekiq/job_retry
  sidekiq/metrics/tracking sidekiq/metrics/query sidekiq/deploy sidekiq/job/interrupt_handler sidekiq/api
  sidekiq/web sidekiq/web/helpers sidekiq/middleware/i18n].each { |file| require file }

# This child's RubyGems knows no gem; Active Record's sqlite3 adapter asks
# RubyGems for sqlite3 before requiring it from the load path, where it is.
class Object
  private def gem(name, *requirements) = (name == "sqlite3") || super
end

module ServerFilesApp
  EXHAUSTED = []

  class Flaky
    include Sidekiq::Job

    sidekiq_options retry: 1
    sidekiq_retries_exhausted { |job, error| EXHAUSTED << [job["jid"], error.message] }
  end

  class Picky
    include Sidekiq::Job

    sidekiq_retry_in do |_count, error|
      case error
      when ArgumentError then :kill
      when TypeError then :discard
      else 600
      end
    end
  end

  class Greeter
    include Sidekiq::Job

    def perform = nil
  end
end

class SidekiqServerFilesInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
    Sidekiq.default_configuration.logger = Logger.new(IO::NULL)
    ServerFilesApp::EXHAUSTED.clear
    @deaths = []
    Sidekiq.default_configuration.death_handlers.clear
    Sidekiq.default_configuration.death_handlers << ->(job, error) { @deaths << [job["jid"], error.class] + (job["discarded_at"] ? [job["discarded_at"]] : []) }
  end

  def payload(klass, **fields) = JSON.generate({"class" => klass, "args" => [1], "jid" => "b" * 24, "queue" => "default"}.merge(fields.transform_keys(&:to_s)))

  def retries = Sidekiq::RetrySet.new

  def dead = Sidekiq::DeadSet.new

  def test_server_internals_load_and_say_what_deckhand_does_instead
    {
      Sidekiq::Manager => "supervises", Sidekiq::Scheduled::Enq => "one Lua step"
    }.each do |klass, hint|
      error = assert_raises(Deckhand::DropIn::Unsupported, klass.name) { klass.new(Sidekiq.default_configuration) }
      assert_includes error.message, "#{klass.name} is not supported in Deckhand's drop-in mode"
      assert_includes error.message, hint
    end
    fetch = Sidekiq::BasicFetch.new(Sidekiq.default_configuration.default_capsule)
    assert_includes assert_raises(Deckhand::DropIn::Unsupported) { fetch.retrieve_work }.message, "in-flight record"
    processor = Sidekiq::Processor.new(Sidekiq.default_configuration.default_capsule)
    assert_includes assert_raises(Deckhand::DropIn::Unsupported) { processor.start }.message, "its own processor threads"
    assert_equal 2, Sidekiq::BasicFetch::TIMEOUT
  end

  def test_a_histogram_writes_sidekiq_s_buckets_where_its_metrics_tab_reads_them
    at = Time.utc(2026, 3, 22, 22, 3, 30)
    histogram = Sidekiq::Metrics::Histogram.new("App::ReportJob")
    [10, 46, 47, 300, 400_000].each { |ms| histogram.record_time(ms) }
    assert_equal 5, histogram.sum
    key = "#{"h|" if Sidekiq::MAJOR == 8}App::ReportJob-22-22:3" # Sidekiq 8's histogram keys start with "h|"
    assert_equal key, Sidekiq.redis { |conn| histogram.persist(conn, at) }
    assert_equal 0, histogram.sum
    histogram.record_time(12)
    Sidekiq.redis { |conn| histogram.persist(conn, at) }
    counts = Sidekiq.redis { |conn| Sidekiq::Metrics::Histogram.new("App::ReportJob").fetch(conn, at) }
    assert_equal({0 => 2, 3 => 2, 7 => 1, 25 => 1}, counts.each_with_index.to_h { |n, bucket| [bucket, n] }.select { |_, n| n.positive? })
    assert_operator Sidekiq.redis { |conn| conn.ttl(key) }, :>, 7 * 3600
  end

  def test_web_helpers_can_be_included_and_work
    page = Class.new do
      include Sidekiq::WebHelpers

      def env = {"SCRIPT_NAME" => "/sidekiq"}
    end.new
    assert_equal %(<span data-nwp="0">5</span>), page.number_with_delimiter(5)
    assert_equal "/sidekiq/", page.root_path
    assert_raises(NoMethodError) { page + 1 }
  end

  def test_shutdown_is_deckhands
    assert_same Deckhand::Shutdown, Sidekiq::Shutdown
    refute Sidekiq::Shutdown <= StandardError
  end

  def test_job_retry_local_puts_a_failed_job_in_the_retry_set_and_raises_handled
    before = Time.now
    error = assert_raises(Sidekiq::JobRetry::Handled) do
      Sidekiq::JobRetry.new(Sidekiq.default_configuration.default_capsule).local(ServerFilesApp::Flaky.new, payload("ServerFilesApp::Flaky"), "default") { raise "boom" }
    end
    assert_equal "boom", error.cause.message
    assert_equal 1, retries.size
    entry = retries.first
    assert_equal ["boom", "RuntimeError", 0, "default"], [entry.error_message, entry.error_class, entry["retry_count"], entry.queue]
    assert_operator entry.at, :>=, before + 15 - 0.01, "the default backoff: at least 15 seconds"

    job = {"class" => "ServerFilesApp::Flaky", "args" => [2], "jid" => "c" * 24}
    assert_raises(Sidekiq::JobRetry::Handled) { Sidekiq::JobRetry.new.local(ServerFilesApp::Flaky, job, "default") { raise "as a Hash" } }
    assert_equal 2, retries.size
    refute job.key?("error_message"), "the caller's Hash is left as it was"
    assert_empty @deaths
  end

  def test_the_backtrace_cleaner_cleans_the_backtraces_stored_with_retries
    config = Sidekiq.default_configuration
    config[:backtrace_cleaner] = ->(lines) { lines.first(1) }
    assert_raises(Sidekiq::JobRetry::Handled) do
      Sidekiq::JobRetry.new.local(ServerFilesApp::Flaky, payload("ServerFilesApp::Flaky", backtrace: true), "default") { raise "traced" }
    end
    assert_equal 1, retries.first.error_backtrace.size
  ensure
    config[:backtrace_cleaner] = Sidekiq::Config::DEFAULTS[:backtrace_cleaner]
  end

  def test_job_retry_local_runs_retries_exhausted_the_death_handlers_and_the_dead_set
    job_retry = Sidekiq::JobRetry.new
    assert_raises(Sidekiq::JobRetry::Handled) do
      job_retry.local(ServerFilesApp::Flaky.new, payload("ServerFilesApp::Flaky", retry_count: 0), "default") { raise "again" }
    end
    assert_equal [["b" * 24, "again"]], ServerFilesApp::EXHAUSTED
    assert_equal [["b" * 24, RuntimeError]], @deaths
    assert_equal [1, 0], [dead.size, retries.size]

    assert_raises(Sidekiq::JobRetry::Handled) do
      job_retry.local(ServerFilesApp::Flaky.new, payload("ServerFilesApp::Flaky", retry_count: 0, dead: false), "default") { raise "once more" }
    end
    assert_equal 1, dead.size, "dead: false keeps it out of the dead set"
    assert_equal 2, @deaths.size, "but the death handlers hear of it"
    assert_kind_of Integer, @deaths.last.last, "marked discarded_at, in Integer milliseconds as Sidekiq 8 does"
    assert_in_delta Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond), @deaths.last.last, 60_000
  end

  def test_job_retry_local_honours_sidekiq_retry_in_kill_discard_and_a_delay
    job_retry = Sidekiq::JobRetry.new
    run = ->(error) { assert_raises(Sidekiq::JobRetry::Handled) { job_retry.local(ServerFilesApp::Picky, payload("ServerFilesApp::Picky"), "default") { raise error } } }
    run.call(ArgumentError.new("kill it"))
    assert_equal [1, 0], [dead.size, retries.size]
    run.call(TypeError.new("drop it"))
    assert_equal [1, 0], [dead.size, retries.size]
    before = Time.now.to_f
    run.call(IOError.new("later"))
    after = Time.now.to_f
    assert_equal 1, retries.size
    assert_includes (before + 600 - 0.01)..(after + 600 + 0.01), retries.first.at.to_f
  end

  def test_job_retry_lets_the_shutdown_and_errors_it_caused_through_unrecorded
    job_retry = Sidekiq::JobRetry.new
    assert_raises(Sidekiq::Shutdown) { job_retry.local(ServerFilesApp::Flaky.new, payload("ServerFilesApp::Flaky"), "default") { raise Sidekiq::Shutdown } }
    assert_raises(Sidekiq::Shutdown) do
      job_retry.local(ServerFilesApp::Flaky.new, payload("ServerFilesApp::Flaky"), "default") do
        raise Sidekiq::Shutdown
      rescue Interrupt
        raise "cleanup failed"
      end
    end
    assert_equal [0, 0], [retries.size, dead.size]
  end

  def test_job_retry_global_uses_the_rules_of_the_class_the_payload_names
    job_retry = Sidekiq::JobRetry.new
    assert_raises(Sidekiq::JobRetry::Handled) { job_retry.global(payload("ServerFilesApp::Flaky", retry_count: 0), "default") { raise "x" } }
    assert_equal 1, ServerFilesApp::EXHAUSTED.size
    assert_raises(Sidekiq::JobRetry::Handled) { job_retry.global(payload("No::Such::Job"), "default") { raise "y" } }
    assert_equal 1, retries.size
  end

  def test_poller_enqueue_moves_due_jobs_until_terminated
    job = ->(n) { {"class" => "ServerFilesApp::Greeter", "args" => [n], "queue" => "q#{n}", "jid" => n.to_s * 24} }
    Sidekiq::ScheduledSet.new.schedule(Time.now.to_f - 5, job.call(1))
    Sidekiq::RetrySet.new.schedule(Time.now.to_f - 5, job.call(2))
    Sidekiq::ScheduledSet.new.schedule(Time.now.to_f + 3600, job.call(3))
    poller = Sidekiq::Scheduled::Poller.new(Sidekiq.default_configuration)
    poller.enqueue
    assert_equal [1, 1, 0], (1..3).map { |n| Sidekiq::Queue.new("q#{n}").size }
    assert_equal [1, 0], [Sidekiq::ScheduledSet.new.size, retries.size]

    Sidekiq::ScheduledSet.new.schedule(Time.now.to_f - 5, job.call(4))
    poller.terminate
    poller.enqueue
    assert_equal 0, Sidekiq::Queue.new("q4").size
  end

  def test_poller_enqueue_goes_by_the_applications_clock_and_waits_as_a_server_would
    job = ->(n) { {"class" => "ServerFilesApp::Greeter", "args" => [n], "queue" => "clock#{n}", "jid" => n.to_s * 24} }
    Sidekiq::ScheduledSet.new.schedule(Time.now.to_f + 3000, job.call(1))
    Sidekiq::ScheduledSet.new.schedule(Time.now.to_f + 9000, job.call(2))
    poller = Sidekiq::Scheduled::Poller.new(Sidekiq.default_configuration)
    later = Time.now + 3600 # a test travelling in time
    Time.stub(:now, later) { poller.enqueue }
    assert_equal [1, 0], [Sidekiq::Queue.new("clock1").size, Sidekiq::Queue.new("clock2").size]
    assert_in_delta later.to_f, Deckhand::Payload.to_time(Sidekiq::Queue.new("clock1").first["enqueued_at"]).to_f, 5 if Sidekiq::VERSION.start_with?("7.")

    config = Sidekiq.default_configuration
    config[:average_scheduled_poll_interval] = 4
    assert_equal 12, poller.send(:scaled_poll_interval, 3)
    Sidekiq.redis { |conn| conn.sadd("processes", %w[p1 p2]) }
    poller.rnd = Random.new(3)
    waits = Array.new(50) { poller.send(:random_poll_interval) }
    assert waits.all? { |wait| wait.between?(4.0, 12.0) }, "two processes: 8 s on average"
    config[:poll_interval_average] = 30
    assert_equal 30, config.config.scheduler_poll_average
    assert Array.new(50) { poller.send(:random_poll_interval) }.all? { |wait| wait.between?(15.0, 45.0) }
  ensure
    config[:poll_interval_average] = nil
    config[:average_scheduled_poll_interval] = 2
  end

  def test_csv_enumerator_walks_rows_and_batches_from_a_cursor_with_the_file_size
    Dir.mktmpdir do |dir|
      path = File.join(dir, "people.csv")
      File.write(path, "name,age\n" + (1..5).map { |n| "p#{n},#{n}\n" }.join)
      open_csv = -> { CSV.open(path, headers: true) }
      enum = Sidekiq::Job::Iterable::CsvEnumerator.new(open_csv.call).rows(cursor: 3)
      assert_instance_of Enumerator::Lazy, enum
      assert_equal 5, enum.size
      assert_equal [[%w[p4 4], 3], [%w[p5 5], 4]], enum.map { |row, index| [row.fields, index] }.to_a
      batches = Sidekiq::Job::Iterable::CsvEnumerator.new(open_csv.call).batches(cursor: 1, batch_size: 2)
      assert_equal 3, batches.size
      assert_equal [[%w[p3 p4], 1], [%w[p5], 2]], batches.map { |rows, index| [rows.map { |r| r["name"] }, index] }.to_a
      assert_equal 6, Sidekiq::Job::Iterable::CsvEnumerator.new(CSV.open(path)).rows(cursor: nil).size, "no headers: every line"
      assert_nil Sidekiq::Job::Iterable::CsvEnumerator.new(CSV.new(File.read(path))).rows(cursor: 0).size
    end
    assert_raises(ArgumentError) { Sidekiq::Job::Iterable::CsvEnumerator.new([]) }
  end

  def test_active_record_enumerator_yields_records_batches_and_unloaded_relations_by_id
    require "active_record"
    require "activerecord-jdbcsqlite3-adapter" if RUBY_ENGINE == "jruby" # its "sqlite3" adapter: the sqlite3 gem is a C extension
    ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")
    ActiveRecord::Schema.verbose = false
    ActiveRecord::Schema.define { create_table(:crates, force: true) }
    crate = Class.new(ActiveRecord::Base) { self.table_name = "crates" }
    [5, 2, 4, 1, 3].each { |id| crate.create!(id: id) }
    build = ->(cursor) { Sidekiq::Job::Iterable::ActiveRecordEnumerator.new(crate.all, cursor: cursor, batch_size: 2) }

    records = build.call(2).records
    assert_equal 5, records.size
    assert_equal [2, 3, 4, 5], records.map { |record, id| [record.id, id].uniq.first }.to_a
    batches = build.call(nil).batches
    assert_equal 5, batches.size, "the record count, as in Sidekiq"
    assert_equal [[[1, 2], 1], [[3, 4], 3], [[5], 5]], batches.map { |batch, id| [batch.map(&:id), id] }
    relations = build.call(3).relations
    assert_equal 3, relations.size
    relation, first_id = relations.first
    refute relation.loaded?
    assert_equal [[3, 4], 3], [relation.map(&:id), first_id]
  ensure
    ActiveRecord::Base.remove_connection if defined?(ActiveRecord::Base)
  end

  def test_deploy_marks_appear_in_metrics_queries_once_a_minute
    at = Time.utc(2026, 3, 1, 12, 5, 40)
    deploy = Sidekiq::Deploy.new
    assert deploy.mark!(at: at, label: "v42 faster reports")
    refute deploy.mark!(at: at, label: "v42 faster reports"), "the same label twice in a minute"
    assert_equal({"2026-03-01T12:05:00Z" => "v42 faster reports"}, deploy.fetch(at.to_date))
    deploy.mark!(at: at - 7200, label: "v41")

    marks = Sidekiq::Metrics::Query.new(now: at + 600).top_jobs.marks
    bucket = Sidekiq::VERSION.start_with?("8.") ? "2026-03-01T12:05:00Z" : "12:05" # each version's bucket names
    assert_equal [["v42 faster reports", bucket]], marks.map { |mark| [mark.label, mark.bucket] }
  end

  def test_execution_tracker_records_what_a_query_reads
    now = Time.now.utc
    tracker = Sidekiq::Metrics::ExecutionTracker.new(Sidekiq.default_configuration)
    tracker.track("default", "Report") { :done }
    assert_raises(IOError) { tracker.track("default", "Report") { raise IOError } }
    assert_raises(Sidekiq::JobRetry::Skip) { tracker.track("default", "Report") { raise Sidekiq::JobRetry::Skip } }
    tracker.track("default", "Tidy") { :done }
    # The fields of Sidekiq's metrics written: Report's p, f and ms, Tidy's
    # p and ms, in the minute's hash (and Sidekiq 8's 10 minutes' too).
    assert_equal Sidekiq::VERSION.start_with?("8.") ? 10 : 5, tracker.flush(now)
    assert_equal 0, tracker.flush(now), "nothing since"

    results = Sidekiq::Metrics::Query.new(now: now).top_jobs.job_results
    assert_equal [3, 1], results["Report"].totals.values_at("p", "f"), "an interrupted iterable job is no failure"
    assert_equal 1, results["Tidy"].totals["p"]
    refute_includes results["Tidy"].series.keys, "f", "no failure series for a class that never failed"
    minute = Sidekiq::VERSION.start_with?("8.") ? Time.utc(now.year, now.month, now.day, now.hour, now.min).iso8601 : now.strftime("%H:%M")
    hist = Sidekiq::Metrics::Query.new(now: now).for_job("Report").job_results["Report"].hist[minute]
    assert_equal 26, hist.size, "Sidekiq's buckets"
    # Quick runs fall in the fastest bucket, which comes last: Sidekiq 8's
    # histogram counts the successful ones, 7.3's query every run.
    assert_equal Sidekiq::VERSION.start_with?("8.") ? 2 : 3, hist.last
  end

  def test_i18n_middleware_carries_the_pushers_locale_into_the_job
    I18n.available_locales = [:en, :fr]
    assert Sidekiq.default_configuration.client_middleware.exists?(Sidekiq::Middleware::I18n::Client)
    I18n.with_locale(:fr) { ServerFilesApp::Greeter.perform_async }
    pushed = JSON.parse(Sidekiq.redis { |conn| conn.call("LINDEX", "queue:default", 0) })
    assert_equal "fr", pushed["locale"]
    seen = Sidekiq::Middleware::I18n::Server.new.call(nil, pushed, "default") { I18n.locale }
    assert_equal :fr, seen
    assert_equal :en, I18n.locale
    assert_equal :en, Sidekiq::Middleware::I18n::Server.new.call(nil, {}, "default") { I18n.locale }, "no locale: the default"
  end
end
