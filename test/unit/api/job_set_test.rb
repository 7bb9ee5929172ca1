# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

class JobSetTest < Minitest::Test
  def api = Deckhand::API.new(Deckhand.config)

  def job(jid, **extra) = JSON.generate({"class" => "RecordJob", "args" => [jid], "jid" => jid, "queue" => "default", "retry" => true}.merge(extra))

  def fill(set, count, start: 1000.0)
    redis.call("ZADD", set, *(0...count).flat_map { |i| [start + i, job(format("j%04d", i), "retry_count" => 3, "error_class" => "E#{i % 3}")] })
  end

  def test_pages_retries_soonest_first_and_dead_newest_first
    fill("retry", 30)
    fill("dead", 30)
    assert_equal %w[j0000 j0001], api.retries.page(1, 2).map(&:jid)
    assert_equal %w[j0010 j0011], api.retries.page(6, 2).map(&:jid)
    assert_equal %w[j0029 j0028], api.dead.page(1, 2).map(&:jid)
    assert_equal [0, 1], api.dead.page(1, 2).map(&:rank)
    assert_equal 30, api.dead.size
  end

  def test_fetch_finds_an_entry_by_its_key_and_nil_once_gone
    fill("schedule", 5)
    entry = api.scheduled.page(1, 5)[3]
    found = api.scheduled.fetch(entry.key)
    assert_equal entry.raw, found.raw
    assert_equal 1003.0, found.score
    api.scheduled.delete([found])
    assert_nil api.scheduled.fetch(entry.key)
    assert_nil api.scheduled.fetch("not-a-key")
    assert_nil api.scheduled.fetch("")
  end

  def test_entries_without_a_jid_have_a_key_too
    redis.call("ZADD", "dead", 5, "not json at all")
    entry = api.dead.page(1, 1).first
    assert entry.corrupt?
    assert_equal "not json at all", api.dead.fetch(entry.key).raw
    assert_equal 1, api.dead.delete([entry])
  end

  def test_filter_returns_matches_in_order_and_where_to_resume
    fill("retry", 100)
    found, resume = api.retries.filter("E1", limit: 5)
    assert_equal %w[j0001 j0004 j0007 j0010 j0013], found.map(&:jid)
    assert_equal [1, 4, 7, 10, 13], found.map(&:rank)
    assert_equal 14, resume
    more, = api.retries.filter("E1", from: resume, limit: 2)
    assert_equal %w[j0016 j0019], more.map(&:jid)
  end

  def test_filter_examines_no_more_than_its_budget
    fill("retry", 100)
    found, resume = api.retries.filter("j0090", budget: 50)
    assert_empty found
    assert_equal 50, resume
    found, resume = api.retries.filter("j0090", from: resume, limit: 1, budget: 50)
    assert_equal ["j0090"], found.map(&:jid)
    assert_equal 91, resume
    _, resume = api.retries.filter("j0090", from: resume, budget: 50)
    assert_nil resume, "the end of the set"
  end

  def test_filter_on_the_dead_set_runs_newest_first
    fill("dead", 10)
    found, = api.dead.filter("E0")
    assert_equal %w[j0009 j0006 j0003 j0000], found.map(&:jid)
  end

  # A text many jobs carry as an argument: the exact search steps over
  # none of them one by one (one script call per 50,000 entries).
  def test_find_jid_exact_looks_only_at_jid_fields
    redis.call("ZADD", "retry", *(1..300).flat_map { |i| [i, job(format("m%023d", i), "args" => ["98431"])] })
    redis.call("ZADD", "retry", 301, job("98431"))
    scans = lambda do |**options|
      redis.call("CONFIG", "RESETSTAT")
      found = api.retries.find_jid("98431", **options)
      [found&.score, redis.call("INFO", "commandstats")[/cmdstat_evalsha:calls=(\d+)/, 1].to_i]
    end
    assert_equal [301.0, 1], scans.call(exact: true)
    score, calls = scans.call
    assert_equal 301.0, score
    assert_operator calls, :>, 300, "the loose search steps over each mention"
    assert_nil api.retries.find_jid("98432", exact: true)
  end

  def test_find_jid_ignores_a_jid_that_only_appears_in_args
    target = "f" * 24
    redis.call("ZADD", "retry", 1, JSON.generate("class" => "X", "args" => [target], "jid" => "other", "queue" => "q"))
    redis.call("ZADD", "retry", 2, JSON.generate("class" => "X", "args" => [], "jid" => target, "queue" => "q"))
    assert_equal 2.0, api.retries.find_jid(target).score
    assert_nil api.retries.find_jid("0" * 24)
  end

  def test_retry_sends_entries_to_their_queue_with_a_fresh_enqueued_at
    fill("retry", 3)
    before = Deckhand::Payload.now
    entries = api.retries.page(1, 2)
    assert_equal 2, api.retries.retry(entries)
    assert_equal 1, api.retries.size
    queued = jobs_in("default")
    assert_equal %w[j0001 j0000], queued.map { |j| j["jid"] }
    assert queued.all? { |j| j["retry_count"] == 2 }, "a retry by hand does not use up an automatic one"
    assert queued.all? { |j| j["enqueued_at"] >= before }
    assert_equal ["default"], redis.call("SMEMBERS", "queues")
  end

  def test_retry_sends_each_entry_to_its_own_queue_in_one_call
    redis.call("ZADD", "retry", 1, job("a", "queue" => "mail"), 2, job("b"), 3, job("c", "queue" => "mail"))
    assert_equal 3, api.retries.retry(api.retries.page(1, 3))
    assert_equal %w[c a], jobs_in("mail").map { |j| j["jid"] }
    assert_equal %w[b], jobs_in("default").map { |j| j["jid"] }
    assert_equal %w[default mail], redis.call("SMEMBERS", "queues").sort
  end

  def test_retry_of_a_scheduled_job_keeps_its_retry_count
    fill("schedule", 1)
    api.scheduled.retry(api.scheduled.page(1, 1))
    assert_equal 3, jobs_in("default").first["retry_count"]
  end

  def test_retry_of_an_entry_already_moved_queues_nothing
    fill("retry", 1)
    entry = api.retries.page(1, 1).first
    redis.call("ZREM", "retry", entry.raw) # the scheduler moved it meanwhile
    assert_equal 0, api.retries.retry([entry])
    assert_empty jobs_in("default")
  end

  def test_kill_moves_entries_to_the_dead_set
    fill("retry", 3)
    entries = api.retries.page(1, 2)
    assert_equal 2, api.retries.kill(entries)
    assert_equal 1, api.retries.size
    assert_equal %w[j0000 j0001].sort, api.dead.page(1, 10).map(&:jid).sort
    assert_in_delta Time.now.to_f, api.dead.page(1, 1).first.score, 5
    assert_raises(ArgumentError) { api.dead.kill(api.dead.page(1, 1)) }
  end

  def test_kill_tells_the_death_handlers_about_each_job_it_moved
    heard = []
    Deckhand.config.on_death { |job, error| heard << [job["jid"], error.class, error.message] }
    Deckhand.config.on_death { |_job, _error| raise "a broken handler" }
    fill("retry", 3)
    entries = api.retries.page(1, 3)
    redis.call("ZREM", "retry", entries[1].raw) # the scheduler took it meanwhile
    assert_equal 2, api.retries.kill(entries)
    assert_equal [["j0000", Deckhand::KilledByHand], ["j0002", Deckhand::KilledByHand]], heard.map { |jid, klass, _| [jid, klass] }
    assert_includes heard.first.last, "RecordJob j0000 was killed by hand: moved from the retries set to the dead set"
    assert_operator Deckhand::KilledByHand, :<, Deckhand::Error
    heard.clear
    fill("schedule", 2)
    redis.call("ZADD", "schedule", 5, "not json")
    assert_equal 3, api.scheduled.kill_all
    assert_equal %w[j0000 j0001], heard.map(&:first).sort, "each job of kill_all; the entry that is no job is skipped"
  end

  def test_kill_trims_the_dead_set_to_its_cap
    Deckhand.config = new_config(dead_max_jobs: 3)
    fill("retry", 5)
    assert_equal 5, api.retries.kill_all
    assert_equal 3, api.dead.size
    assert_equal 0, api.retries.size
  end

  def test_retry_all_moves_every_job_and_leaves_what_is_not_a_job
    fill("dead", 1200)
    redis.call("ZADD", "dead", 0, "garbage")
    assert_equal 1200, api.dead.retry_all
    assert_equal 1200, redis.call("LLEN", "queue:default")
    assert_equal ["garbage"], redis.call("ZRANGE", "dead", 0, -1)
  end

  def test_delete_all_and_delete
    fill("dead", 10)
    assert_equal 2, api.dead.delete(api.dead.page(1, 2))
    assert_equal 8, api.dead.delete_all
    assert_equal 0, redis.call("EXISTS", "dead")
  end

  def test_entry_reads_failure_fields_and_backtrace
    trace = Deckhand::Payload::Backtrace.compress(["a.rb:1", "b.rb:2"])
    raw = job("x", "error_class" => "Boom", "error_message" => "it broke", "error_backtrace" => trace,
      "failed_at" => 1_732_000_000_000, "retried_at" => 1_732_000_100.5, "retry_count" => 4)
    redis.call("ZADD", "retry", 1, raw)
    entry = api.retries.page(1, 1).first
    assert_equal ["Boom", "it broke", 4], [entry.error_class, entry.error_message, entry.retry_count]
    assert_equal ["a.rb:1", "b.rb:2"], entry.backtrace
    assert_equal Time.at(1_732_000_000), entry.failed_at
    assert_in_delta 1_732_000_100.5, entry.retried_at.to_f, 0.001
  end

  def test_active_job_wrappers_show_the_wrapped_class_and_arguments
    raw = JSON.generate("class" => "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper", "wrapped" => "SignupJob",
      "queue" => "default", "jid" => "w", "args" => [{"job_class" => "SignupJob", "arguments" => [7, "x"]}])
    record = Deckhand::API::JobRecord.new(raw)
    assert_equal "SignupJob", record.display_class
    assert_equal [7, "x"], record.display_args
    ours = Deckhand::API::JobRecord.new(raw.sub("ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper", "ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper"))
    assert_equal ["SignupJob", [7, "x"]], [ours.display_class, ours.display_args]
  end

  def test_entries_by_score_range_reversed_walks_and_reschedule
    fill("retry", 5)
    assert_equal %w[j0001 j0002 j0003], api.retries.in_scores(1001.0, 1003.0).map(&:jid)
    assert_equal %w[j0004 j0003], api.retries.each_entry(reverse: true).first(2).map(&:jid)
    entry = api.retries.in_scores(1000.0, 1000.0).first
    assert api.retries.reschedule(entry, 2000.5)
    assert_equal [2000.5], api.retries.in_scores(2000.0, 3000.0).map(&:score)
    api.retries.delete([api.retries.in_scores(2000.0, 3000.0).first])
    refute api.retries.reschedule(entry, 3000.0), "gone: nothing is added back"
    assert_equal 4, api.retries.size
  end

  # A plugin's own sorted set, by its name: read, searched, retried, killed
  # and deleted as the schedule, retry and dead sets are.
  def test_a_named_set_is_read_and_acted_on_like_the_others
    fill("failed", 6)
    failed = api.job_set("failed")
    assert_equal ["failed", 6], [failed.key, failed.size]
    assert_equal %w[j0000 j0001], failed.page(1, 2).map(&:jid)
    assert_equal %w[j0005 j0004], failed.each_entry(reverse: true).first(2).map(&:jid)
    assert_equal %w[j0002], failed.filter("j0002").first.map(&:jid)
    assert_equal 1, failed.retry(failed.page(1, 1))
    assert_equal [["j0000", 2]], jobs_in("default").map { |j| j.values_at("jid", "retry_count") }
    assert_equal 1, failed.kill(failed.page(1, 1))
    assert_equal %w[j0001], api.dead.page(1, 5).map(&:jid)
    assert_equal 1, failed.delete(failed.page(1, 1))
    assert_equal 3, failed.size
    failed.delete_all
    assert_equal 0, redis.call("EXISTS", "failed")
  end

  def test_a_set_name_that_is_no_name_is_refused_naming_the_choices
    error = assert_raises(ArgumentError) { api.job_set(:failed) }
    assert_includes error.message, "give one of scheduled, retries, dead, or a sorted set's name (a String)"
    assert_raises(ArgumentError) { api.job_set("") }
  end

  def test_bury_adds_a_payload_to_the_dead_set_trimmed_and_told
    told = []
    config = Deckhand::Config.new(redis: {url: Deckhand::RedisHarness.url}, dead_max_jobs: 2, dead_timeout: 100)
    config.on_death { |job, error| told << [job["jid"], error.class] }
    dead = Deckhand::API.new(config).dead
    dead.bury(job("old"), now: 1000.0)
    dead.bury(job("a"), now: 2000.0)
    dead.bury(job("b"), now: 2001.0, notify: false)
    dead.bury(job("c"), now: 2002.0, error: RuntimeError.new("by API"))
    assert_equal %w[c b], dead.page(1, 10).map(&:jid), "older than dead_timeout, or past dead_max_jobs: trimmed"
    assert_equal [["old", Deckhand::KilledByHand], ["a", Deckhand::KilledByHand], ["c", RuntimeError]], told
    assert_raises(ArgumentError) { Deckhand::API.new(config).retries.bury(job("x")) }
  end
end
