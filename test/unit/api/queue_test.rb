# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

class QueueApiTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def push(n, queue: "default")
    Deckhand::Client.push_bulk("class" => "RecordJob", "args" => (1..n).to_a.zip, "queue" => queue)
  end

  def test_lists_queues_with_size_and_paused_flag
    push(3, queue: "a")
    push(1, queue: "b")
    api.queue("b").pause
    queues = api.queues
    assert_equal [["a", 3, false], ["b", 1, true]], queues.map { |q| [q.name, q.size, q.paused?] }
  end

  def test_latency_reads_integer_milliseconds_and_float_seconds
    now = Time.now
    redis.call("LPUSH", "queue:ms", JSON.generate("class" => "X", "args" => [], "jid" => "a", "enqueued_at" => ((now.to_f - 30) * 1000).to_i))
    redis.call("LPUSH", "queue:float", JSON.generate("class" => "X", "args" => [], "jid" => "b", "enqueued_at" => now.to_f - 90.5))
    redis.call("SADD", "queues", "ms", "float", "empty")
    assert_in_delta 30, api.queue("ms").latency(now), 0.01
    assert_in_delta 90.5, api.queue("float").latency(now), 0.01
    assert_equal 0.0, api.queue("empty").latency(now)
    assert_in_delta 90.5, api.queues.find { |q| q.name == "float" }.latency(now), 0.01
  end

  def test_latency_comes_from_the_job_that_runs_next
    now = Time.now
    redis.call("LPUSH", "queue:q", JSON.generate("class" => "X", "jid" => "old", "enqueued_at" => now.to_f - 100))
    redis.call("LPUSH", "queue:q", JSON.generate("class" => "X", "jid" => "new", "enqueued_at" => now.to_f - 1))
    assert_in_delta 100, api.queue("q").latency(now), 0.01
  end

  def test_pages_list_jobs_in_the_order_they_will_run
    push(30)
    queue = api.queue("default")
    first = queue.jobs(page: 1, per_page: 10)
    assert_equal (1..10).to_a, first.map { |j| j.args.first }
    assert_equal (0..9).to_a, first.map(&:position)
    assert_equal (21..30).to_a, queue.jobs(page: 3, per_page: 10).map { |j| j.args.first }
    assert_empty queue.jobs(page: 4, per_page: 10)
  end

  def test_delete_job_finds_it_near_its_position_even_after_others_ran
    push(50)
    queue = api.queue("default")
    target = queue.jobs(page: 3, per_page: 10)[4]
    redis.call("RPOP", "queue:default", 7) # seven jobs ahead of it ran meanwhile
    assert queue.delete_job(target.jid, position: target.position)
    assert_equal 42, api.queue("default").size
    refute_includes jobs_in("default").map { |j| j["jid"] }, target.jid
    refute queue.delete_job(target.jid, position: target.position), "already gone"
  end

  def test_delete_job_ignores_a_jid_that_only_appears_in_args
    jid = "a" * 24
    Deckhand::Client.push("class" => "RecordJob", "args" => [jid])
    refute api.queue("default").delete_job(jid)
    assert_equal 1, api.queue("default").size
  end

  def test_clear_empties_and_forgets_the_queue
    push(5, queue: "gone")
    push(1, queue: "kept")
    api.queue("gone").clear
    assert_equal 0, redis.call("EXISTS", "queue:gone")
    assert_equal ["kept"], redis.call("SMEMBERS", "queues")
  end

  def test_pause_and_resume_use_the_paused_set
    queue = api.queue("mailers")
    queue.pause
    assert_equal ["mailers"], redis.call("SMEMBERS", Deckhand::Store::Jobs::Queues::PAUSED)
    assert api.queue("mailers").paused?
    queue.resume
    refute api.queue("mailers").paused?
    assert_empty Deckhand::Store::Jobs::Queues.paused(Deckhand.config.store)
  end
end
