# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq8_api_test.rb starts it): the
# helpers Sidekiq 8 added for plugins and the data API (load hooks,
# ApiUtils, RingBuffer, Paginator, IterableJobQuery), on real Redis.
require "minitest/autorun"
require "json"
require "sidekiq"

Sidekiq.loader.on_load(:api) { Sidekiq::Queue.define_method(:loaded_by_hook?) { true } }
require "sidekiq/api"
require "sidekiq/paginator"
require "sidekiq/ring_buffer"
require "sidekiq/loader"
require "sidekiq/job_util"
require "sidekiq/job_retry"
require "sidekiq/monitor"
require "sidekiq/deploy"
require "sidekiq/sd_notify"
require "socket"
require "stringio"
require "tmpdir"

class Sidekiq8Mailer
  include Sidekiq::Job

  sidekiq_options queue: "mail", retry: 3

  def perform(*) = nil
end

class Sidekiq8ApiTest < Minitest::Test
  include Sidekiq::Paginator
  include Sidekiq::ApiUtils

  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def test_api_load_hooks_run_when_the_api_loads_and_at_once_after
    assert Sidekiq::Queue.new.loaded_by_hook?
    ran = false
    Sidekiq.loader.on_load(:api) { ran = true }
    assert ran
  end

  def test_latency_from_either_timestamp_format
    assert_in_delta 5.0, calculate_latency("enqueued_at" => (Time.now.to_f * 1000).to_i - 5000), 0.5
    assert_in_delta 3.0, calculate_latency("created_at" => Time.now.to_f - 3), 0.5
    assert_equal 0.0, calculate_latency({})
  end

  def test_ring_buffer_overwrites_the_oldest
    buffer = Sidekiq::RingBuffer.new(3)
    4.times { |i| buffer << i + 1 }
    assert_equal [4, 2, 3], buffer.buffer
    assert_equal 9, buffer.sum
    buffer.reset(7)
    assert_equal [7, 7, 7], buffer.to_a
  end

  def test_paginator_pages_sets_and_lists
    Sidekiq.redis { |conn| conn.call("ZADD", "retry", 1, "a", 2, "b", 3, "c") }
    assert_equal [1, 3, [["a", 1.0], ["b", 2.0]]], page("retry", 0, 2)
    assert_equal [2, 3, [["a", 1.0]]], page("retry", 2, 2, reverse: true)
    Sidekiq.redis { |conn| conn.call("RPUSH", "queue:q", "x", "y", "z") }
    assert_equal [1, 3, %w[z y]], page("queue:q", 1, 2, reverse: true)
    assert_equal [1, 0, []], page("nothing-here")
    assert_equal [1, 5, [1, 2]], page_items(1..5, 9, 2)
  end

  def test_iterable_job_query_reads_saved_progress
    Sidekiq.redis { |conn| conn.call("HSET", "it-j1", "ex", "5", "rt", "1.5", "c", '{"offset":100}', "cancelled", "1700000000") }
    Sidekiq.redis { |conn| conn.call("HSET", "it-j2", "c", "not-json") }
    query = Sidekiq::IterableJobQuery.new(["j1", "j2", "j1", nil, "missing"])
    assert_equal 5, query["j1"].executions
    assert_equal({"offset" => 100}, query["j1"].cursor)
    assert_equal 1_700_000_000, query["j1"].cancelled
    assert_equal "not-json", query["j2"].cursor
    assert_nil query["missing"]
    assert_raises(ArgumentError) { Sidekiq::IterableJobQuery.new(nil) }
  end

  def test_job_util_validates_and_normalizes_as_sidekiq_does
    util = Object.new.extend(Sidekiq::JobUtil)
    item = util.normalize_item("class" => Sidekiq8Mailer, "args" => [1], "retry_for" => 90.5)
    assert_match(/\A\h{24}\z/, item["jid"])
    assert_equal ["Sidekiq8Mailer", "mail", 3, 90], item.values_at("class", "queue", "retry", "retry_for")
    assert_kind_of Integer, item["created_at"]
    assert_raises(ArgumentError) { util.validate("class" => "X", "args" => "x") }
    assert_raises(ArgumentError) { util.normalize_item("class" => "X", "args" => [], "queue" => "") }
    error = assert_raises(ArgumentError) { util.normalize_item("class" => String, "args" => []) }
    assert_match(/must include a Sidekiq::Job class/, error.message)
    error = assert_raises(ArgumentError) { util.verify_json("class" => "X", "wrapped" => "RealJob", "args" => [:nope]) }
    assert_match(/RealJob must be native JSON types/, error.message)
  end

  def test_strict_args_lives_in_the_config_defaults
    Sidekiq.strict_args!(false)
    assert_equal false, Sidekiq::Config::DEFAULTS[:on_complex_arguments]
    Sidekiq8Mailer.perform_async(:sym)
    assert_equal [["sym"]], Sidekiq::Queue.new("mail").map(&:args)
    Sidekiq::Config::DEFAULTS[:on_complex_arguments] = :raise
    assert_raises(ArgumentError) { Sidekiq8Mailer.perform_async(:sym) }
  ensure
    Sidekiq.strict_args!
  end

  def test_testing_switches_modes_for_a_block
    assert_raises(RuntimeError) { Sidekiq.testing!(:bogus) }
    Sidekiq.testing!(:fake) do
      Sidekiq8Mailer.perform_async(1)
      assert_equal 1, Sidekiq8Mailer.jobs.size
    end
    assert_equal 0, Sidekiq::Queue.new("mail").size
    assert Sidekiq::Testing.disabled?, "the mode before the block is back"
    Sidekiq8Mailer.jobs.clear
    assert_nil Sidekiq.pro?
  end

  def test_a_process_with_capsules_lists_their_queues_and_weights
    info = {"hostname" => "box", "pid" => 1, "identity" => "box:1", "version" => Sidekiq::VERSION, "started_at" => Time.now.to_f,
            "capsules" => {"default" => {"mode" => "weighted", "concurrency" => 5, "weights" => {"a" => 2, "b" => 1}},
                           "single" => {"mode" => "strict", "concurrency" => 1, "weights" => {"c" => 0}}}}
    Sidekiq.redis do |conn|
      conn.sadd("processes", ["box:1"])
      conn.hset("box:1", "info", JSON.generate(info), "busy", 0, "beat", Time.now.to_f)
    end
    process = Sidekiq::ProcessSet["box:1"]
    assert_equal %w[a b c], process.queues
    assert_equal({"a" => 2, "b" => 1, "c" => 0}, process.weights)
    assert_equal %w[default single], process.capsules.keys
    old = Sidekiq::Process.new("queues" => %w[x], "weights" => {"x" => 1})
    assert_equal [%w[x], {"x" => 1}, nil], [old.queues, old.weights, old.capsules], "a record without capsules (before Sidekiq 8.0.8)"
  end

  def test_sidekiq_enterprise_is_there_once_named_and_is_not_enterprise
    assert_nil defined?(Sidekiq::Enterprise), "not defined until an application names it"
    assert_nil Sidekiq.ent?
    assert_respond_to Sidekiq::Enterprise::Crypto, :enable
    assert_nil Sidekiq.ent?, "drop-in mode's stand-in is not Sidekiq Enterprise"
  end

  def test_queue_summaries_leader_and_dump_threads
    Sidekiq.redis do |conn|
      conn.call("SADD", "queues", "foo", "bar")
      conn.call("RPUSH", "queue:foo", JSON.generate("enqueued_at" => (Time.now.to_f * 1000).to_i - 2000))
      conn.call("SADD", "paused", "bar")
      conn.call("SADD", "processes", "h1:1")
      conn.call("HSET", "h1:1", "info", JSON.generate("identity" => "h1:1", "hostname" => "h1"), "beat", Time.now.to_f.to_s)
    end
    bar, foo = Sidekiq::Stats.new.queue_summaries
    assert_equal ["bar", 0, true], [bar.name, bar.size, bar.paused?]
    assert_equal ["foo", 1, false], [foo.name, foo.size, foo.paused?]
    assert_in_delta 2.0, foo.latency, 0.5
    set = Sidekiq::ProcessSet.new(false)
    assert_equal "", set.leader
    Sidekiq.redis { |conn| conn.call("SET", "dear-leader", "h1:1") }
    assert_equal "", set.leader, "read once"
    assert Sidekiq::ProcessSet.new(false).first.leader?
    Sidekiq::ProcessSet.new(false).first.dump_threads
    assert_equal ["TTIN"], Sidekiq.redis { |conn| conn.call("LRANGE", "h1:1-signals", 0, -1) }
  end

  def test_job_records_read_as_sidekiq_8_reads_them
    broken = Sidekiq::JobRecord.new("not-json", "default")
    assert_equal [{}, ["not-json"], nil], [broken.item, broken.args, broken.klass]
    payload = {"class" => "X", "args" => ["a", "secret"], "encrypt" => true}
    assert_same payload, Sidekiq::JobRecord.new(payload).item
    assert_equal ["a", "[encrypted data]"], Sidekiq::JobRecord.new(payload).display_args
    compressed = Sidekiq::JobRetry.new(Sidekiq.default_configuration).send(:compress_backtrace, ["a.rb:1"])
    json = JSON.generate("class" => "X", "args" => [], "error_class" => "E", "error_backtrace" => compressed)
    entry = Sidekiq::SortedEntry.new(Sidekiq::RetrySet.new, Time.now.to_f, json)
    assert entry.error?
    assert_equal ["a.rb:1"], entry.error_backtrace
  end

  def test_a_rescheduled_entry_reads_its_new_time
    Sidekiq.redis { |conn| conn.call("ZADD", "retry", Time.now.to_f.to_s, JSON.generate("class" => "X", "args" => [], "jid" => "j1")) }
    entry = Sidekiq::RetrySet.new.first
    later = Time.now.to_f + 500
    entry.reschedule(Time.at(later))
    assert_in_delta later, entry.score, 0.001
    assert_in_delta later, Sidekiq::RetrySet.new.first.score, 0.001
  end

  def test_sidekiqmon_shows_each_capsules_queues_and_names_an_unknown_section
    Sidekiq.redis do |conn|
      conn.call("SADD", "processes", "h1:1")
      info = {"identity" => "h1:1", "tag" => "web", "labels" => ["fast"], "started_at" => Time.now.to_f - 600, "concurrency" => 3, "busy" => 0,
              "capsules" => {"default" => {"weights" => {"low" => 1, "high" => 3}}, "single" => {"weights" => {"solo" => 0}}}}
      conn.call("HSET", "h1:1", "info", JSON.generate(info), "beat", Time.now.to_f.to_s, "busy", "0")
    end
    status = Sidekiq::Monitor::Status.new
    out, = capture_io { status.display("processes") }
    assert_includes out, "h1:1 [web] [fast]"
    assert_includes out, "(10 minutes ago)"
    assert_includes out, "Queues: low, high; solo"
    out, = capture_io { status.display("bogus") }
    assert_includes out, "I don't know how to check the status of 'bogus'!"
    assert_equal "aaaa; bbbb\n  cccc", status.send(:split_multiline, %w[aaaa bbbb cccc], max_length: 10, pad: 2)
  end

  def test_sd_notify_sends_errno_and_says_when_the_socket_is_gone
    Dir.mktmpdir do |dir|
      path = File.join(dir, "notify.sock")
      server = Socket.new(:UNIX, :DGRAM)
      server.bind(Socket.sockaddr_un(path))
      ENV["NOTIFY_SOCKET"] = path
      Sidekiq::SdNotify.errno(3)
      assert_equal "ERRNO=3", server.recvfrom(64).first
      server.close
      ENV["NOTIFY_SOCKET"] = File.join(dir, "missing.sock")
      assert_raises(Sidekiq::SdNotify::NotifyError) { Sidekiq::SdNotify.notify("READY=1") }
    ensure
      ENV.delete("NOTIFY_SOCKET")
    end
  end

  def test_deploy_label_maker_names_the_commit
    label = Sidekiq::Deploy::LABEL_MAKER.call
    Sidekiq::Deploy.new.mark!(at: Time.utc(2026, 5, 29, 12, 0, 0))
    assert_equal({"2026-05-29T12:00:00Z" => label}, Sidekiq::Deploy.new.fetch(Date.new(2026, 5, 29)))
  end

  def test_delay_says_what_to_call_and_the_plain_formatter_leads_with_the_level
    assert_match(/call \.perform_async/, assert_raises(ArgumentError) { Sidekiq8Mailer.delay }.message)
    assert_match(/call \.perform_in/, assert_raises(ArgumentError) { Sidekiq8Mailer.delay_for(10) }.message)
    assert_match(/call \.perform_at/, assert_raises(ArgumentError) { Sidekiq8Mailer.delay_until(Time.now) }.message)
    out = StringIO.new
    logger = Sidekiq::Logger.new(out)
    logger.formatter = Sidekiq::Logger::Formatters::Plain.new
    Sidekiq::Context.with(tags: %w[a b]) { logger.info("plain message") }
    assert_match(/\AINFO \d{4}-\d\d-\d\dT[\d:.]+Z pid=#{$$} tid=\S+ tags=a,b: plain message\n\z/, out.string)
  end

  def test_the_terminal_dashboards_files_load_and_its_tabs_name_deckhand_top
    require "sidekiq/tui/controls"
    require "sidekiq/tui/tabs/base_tab"
    tab = Class.new(Sidekiq::TUI::BaseTab)
    error = assert_raises(Deckhand::DropIn::Unsupported) { tab.new(Object.new) }
    assert_match(/Sidekiq::TUI::BaseTab .*`deckhand top`/, error.message)
  end
end
