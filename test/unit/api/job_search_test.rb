# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

class JobSearchApiTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def job(jid, args, **extra) = {"class" => "RecordJob", "args" => args, "jid" => jid, "queue" => "default"}.merge(extra)

  def add(set, item, score: Time.now.to_f) = redis.call("ZADD", set, score, JSON.generate(item))

  def enqueue(queue, item)
    redis.call("LPUSH", "queue:#{queue}", JSON.generate(item))
    redis.call("SADD", "queues", queue)
  end

  def test_finds_an_argument_in_every_set_and_queue_and_only_as_an_argument
    add("retry", job("r" * 24, [98431, "x"], "error_class" => "E", "error_message" => "order 98431 failed"))
    add("schedule", job("s" * 24, [{"order" => "98431"}]), score: Time.now.to_f + 60)
    add("dead", job("d" * 24, [[1, [98431]]]))
    add("dead", job("e" * 24, [984310], "error_message" => "98431"))       # only in the message, and in a longer number
    enqueue("mailers", job("m" * 24, ["98431"], "queue" => "mailers"))
    enqueue("mailers", job("n" * 24, ["other"], "queue" => "mailers"))
    enqueue("default", job("98431" + "0" * 19, [1]))                        # the text in the jid only
    search = api.find_by_argument("98431")
    assert_equal [[:scheduled, "s" * 24], [:retries, "r" * 24], [:dead, "d" * 24], ["mailers", "m" * 24]],
      search.hits.map { |hit| [hit.place, hit.record.jid] }
    assert_equal 0, search.hits.last.record.position
    assert search.complete?
  end

  def test_finds_a_waiting_job_by_its_whole_jid
    enqueue("mailers", job("a1" * 12, ["x"], "queue" => "mailers"))
    enqueue("mailers", job("a1" * 11 + "ff", ["y"], "queue" => "mailers"))
    search = api.find_by_argument("a1" * 12)
    assert_equal [["mailers", "a1" * 12]], search.hits.map { |hit| [hit.place, hit.record.jid] }
    assert_empty api.find_by_argument("a1" * 6).hits, "part of a jid is no jid"
  end

  def test_reads_the_arguments_inside_an_active_job_wrapper
    wrapped = {"job_class" => "Receipt", "arguments" => [{"order_id" => 98431, "_aj_ruby2_keywords" => ["order_id"]}]}
    enqueue("default", job("w" * 24, [wrapped], "class" => "ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper", "wrapped" => "Receipt"))
    assert_equal ["w" * 24], api.find_by_argument("98431").hits.map { |hit| hit.record.jid }
  end

  def test_a_queue_is_searched_from_the_job_that_runs_next_and_only_so_far
    jobs = (0...30).map { |i| job(format("%024d", i), [i % 3]) } # pushed left, taken right: 0 runs first
    jobs.each { |item| enqueue("default", item) }
    hits = api.find_by_argument("2").hits
    assert_equal [2, 5, 8], hits.first(3).map { |hit| hit.record.position }
    assert_equal 10, hits.size

    search = Deckhand::API::JobSearch.new(Deckhand.config, "2", queue_budget: 12)
    assert_equal [2, 5, 8, 11], search.hits.map { |hit| hit.record.position }
    assert_equal ["default"], search.unread
  end

  def test_stops_at_its_limit_and_says_what_it_left
    10.times { |i| add("retry", job(format("%024d", i), ["same"]), score: i) }
    search = api.find_by_argument("same", limit: 4)
    assert_equal 4, search.hits.size
    assert_equal [:retries, :dead], search.unread, "the rest of the retries, and the dead set it never reached"
    refute search.complete?
  end

  def test_an_empty_text_is_refused_with_the_fix
    error = assert_raises(ArgumentError) { api.find_by_argument("") }
    assert_includes error.message, "give the argument's value"
  end

  def test_a_text_with_quotes_is_found_as_json_writes_it
    add("dead", job("q" * 24, [%(say "hi")]))
    assert_equal ["q" * 24], api.find_by_argument(%(say "hi")).hits.map { |hit| hit.record.jid }
  end

  def test_finds_the_jobs_of_a_paused_class_held_aside_by_argument_and_by_jid
    api.class_pauses.pause("ReportJob")
    redis.call("SADD", "queues", "default")
    add("deckhand:held:default:ReportJob", job("h" * 24, [98431], "class" => "ReportJob"))
    add("deckhand:held:default:ReportJob", job("i" * 24, [1], "class" => "ReportJob"))
    add("deckhand:held:default:Resumed", job("j" * 24, [98431], "class" => "Resumed")) # its class is not paused: on its way back
    hits = api.find_by_argument("98431").hits
    assert_equal [[:held, "h" * 24, "default"]], hits.map { |hit| [hit.place, hit.record.jid, hit.queue] }
    assert_equal "ReportJob", hits.first.record.held_class
    held = api.class_pauses.find_held("i" * 24)
    assert_equal ["i" * 24, "default", "default", "ReportJob"], [held.jid, held.queue, held.list, held.held_class]
    assert_nil api.class_pauses.find_held("j" * 24)
    assert_nil api.class_pauses.find_held("k" * 24)
  end

  def test_a_held_set_read_only_in_part_is_named_unread
    api.class_pauses.pause("ReportJob")
    redis.call("SADD", "queues", "default")
    5.times { |i| add("deckhand:held:default:ReportJob", job(format("%024d", i), ["same"], "class" => "ReportJob"), score: i) }
    search = Deckhand::API::JobSearch.new(Deckhand.config, "same", queue_budget: 3)
    assert_equal 3, search.hits.size
    assert_equal [:held], search.unread
  end

  def test_finds_an_argument_at_a_queue_s_priority_levels_in_run_order
    late = Deckhand::Client.push("class" => "RecordJob", "args" => [98431], "priority" => 4)
    own = Deckhand::Client.push("class" => "RecordJob", "args" => [98431])
    urgent = Deckhand::Client.push("class" => "RecordJob", "args" => [98431], "priority" => -4)
    mail = Deckhand::Client.push("class" => "RecordJob", "args" => [98431], "queue" => "mail", "priority" => -9)
    hits = api.find_by_argument("98431").hits
    assert_equal [[urgent, -4], [own, nil], [late, 4], [mail, -9]], hits.map { |hit| [hit.record.jid, hit.record.level] }, "queue by queue, each in run order"
    assert_equal %w[default default default mail], hits.map(&:queue)
  end
end
