# frozen_string_literal: true

require "test_helper"
require "support/reliability_helpers"

class ReaperTest < Minitest::Test
  include Deckhand::ReliabilityHelpers

  def setup
    super
    Deckhand.config = new_config(heartbeat_interval: 0.5, heartbeat_ttl: 1, reaper_interval: 0.1, concurrency: 3, timeout: 2)
    wait_for_redis_uptime(2) # 3 heartbeat intervals: live processes have reconnected
  end

  def test_a_dead_process_s_unsettled_jobs_go_back_to_the_front_of_their_queues_in_order
    redis.call("LPUSH", "queue:default", payload("waiting"))
    identity = dead_process(queues: %w[default mail],
      lots: {"default" => [[payload("a"), payload("b")], [[payload("c"), payload("x")], [1]]], "mail" => [[payload("m", queue: "mail")]]},
      landing: {"default" => [payload("d")]})

    assert_equal 1, reaper.reap

    assert_equal %w[waiting d c b a], queue_jids("default"), "a, taken first, must be the next job out; x was settled"
    assert_equal %w[m], queue_jids("mail")
    assert_includes redis.call("SMEMBERS", "queues"), "mail"
    assert_empty redis.call("KEYS", "deckhand:inflight:#{identity}:*")
    assert_empty redis.call("KEYS", "deckhand:lot:#{identity}:*")
    assert_equal 0, redis.call("EXISTS", Keys.landing(identity, "default"))
    assert_equal 0, redis.call("HEXISTS", Keys::OWNERS, identity)
    assert_equal 0, redis.call("SISMEMBER", Keys::PROCESSES, identity)
  end

  def test_taken_and_landed_jobs_count_one_recovery_and_payloads_stay_byte_for_byte
    odd = JSON.generate({"class" => "RecordJob", "args" => [{"deckhand_recovered" => 7, "recovered" => "x"}],
                         "jid" => "odd", "queue" => "default", "retry" => true})
    dead_process(lots: {"default" => [[payload("a"), odd]]}, landing: {"default" => [payload("d")]})
    reaper.reap
    assert_equal 1, recoveries("a")
    assert_equal 1, recoveries("odd")
    assert_equal 1, recoveries("d"), "an idle process hands a landed job straight to a thread"
    assert_equal [payload("d"), odd, payload("a")], redis.call("LRANGE", "queue:default", 0, -1), "every payload goes back as it was"
    ttl = redis.call("TTL", Keys.recoveries("default"))
    assert_operator ttl, :>, 0, "recovery counts must expire"
    assert_operator ttl, :<=, Deckhand::Server::Recovery::Reaper::COUNTER_TTL
    refute_nil redis.call("HGET", Keys.recoveries("default"), "~v"), "a version tells fetchers the counts changed"
  end

  def test_of_the_suspects_only_the_one_recorded_as_running_counts
    dead_process(lots: {"default" => [[payload("s1"), payload("s2"), payload("fresh")]]},
      recoveries: {"default" => {"s1" => 1, "s2" => 1}}, suspects: {"default" => ["s2"]})
    reaper.reap
    assert_equal 1, recoveries("s1"), "a suspect that was not running is innocent of this crash"
    assert_equal 2, recoveries("s2")
    assert_equal 1, recoveries("fresh"), "a job never recovered before may have been running"
    assert_equal 0, redis.call("EXISTS", Keys.suspects("deadhost:4242:0dead", "default"))
  end

  def test_the_last_allowed_recovery_sends_a_poison_pill_to_the_dead_set_and_fires_death_handlers
    deaths = Queue.new
    Deckhand.config.on_death { |job, error| deaths << [job, error] }
    identity = dead_process(lots: {"default" => [[payload("pill"), payload("innocent")]]},
      recoveries: {"default" => {"pill" => 2}}, suspects: {"default" => ["pill"]})

    reaper.reap

    assert_equal %w[innocent], queue_jids("default")
    assert_equal 1, redis.call("ZCARD", "dead")
    job = zset("dead").first.first
    assert_equal "pill", job["jid"]
    assert_equal "Deckhand::PoisonPill", job["error_class"]
    assert_match(/RecordJob was running when its process died 3 times \(the last: #{identity}\)/, job["error_message"])
    assert_equal ["pill"], job["args"], "the job's own fields are untouched"
    assert_kind_of Integer, job["failed_at"]
    dead_job, error = deaths.pop
    assert_equal "pill", dead_job["jid"]
    assert_kind_of Deckhand::PoisonPill, error
    assert_nil recoveries("pill"), "the count goes with the job"
    assert_equal 1, recoveries("innocent")
    assert_equal 0, redis.call("HLEN", Keys.poison("default"))
  end

  def test_final_failure_handlers_hear_of_a_poison_pill_before_it_is_buried
    heard = []
    Deckhand.config.on_final_failure do |job, error, outcome|
      heard << [job["jid"], error.class, outcome, redis.call("ZCARD", "dead"), redis.call("HLEN", Keys.poison("default"))]
    end
    dead_process(lots: {"default" => [[payload("pill"), payload("innocent")]]},
      recoveries: {"default" => {"pill" => 2}}, suspects: {"default" => ["pill"]})
    reaper.reap
    assert_equal [["pill", Deckhand::PoisonPill, :dead, 0, 1]], heard, "told while the pill waits in its poison hash"
    assert_equal 1, redis.call("ZCARD", "dead")
  end

  # A NotImplementedError is no StandardError: the reaper logs it and goes on
  # to the next pill and the next handler.
  def test_death_handlers_raising_any_exception_leave_the_reaper_and_the_other_handlers_alone
    log = StringIO.new
    Deckhand.config.logger = Logger.new(log)
    calls = []
    Deckhand.config.on_death { |job, _| calls << [:first, job["jid"]] && raise(NotImplementedError, "not yet") }
    Deckhand.config.on_death { |job, _| calls << [:second, job["jid"]] }
    dead_process(lots: {"default" => [[payload("pill"), payload("pill2"), payload("innocent")]]},
      recoveries: {"default" => {"pill" => 2, "pill2" => 2}}, suspects: {"default" => %w[pill pill2]})

    reaper.reap

    assert_equal %w[pill pill2], zset("dead").map { |job, _| job["jid"] }.sort
    assert_equal [[:first, "pill"], [:first, "pill2"], [:second, "pill"], [:second, "pill2"]], calls.sort
    assert_includes log.string, "death handler raised NotImplementedError: not yet"
  end

  # A pill alone in its lot: no innocent job goes back beside it. Pushed, its
  # queue is named in the queues set, which is how the reaper finds the poison hash.
  def test_a_poison_pill_alone_in_its_lot_is_buried_with_its_bytes_and_counted
    raw = payload("pill")
    redis.call("SADD", "queues", "default") # as its push left it
    pills = []
    Deckhand.config.events.on(:poison_pill) { |count| pills << count }
    dead_process(lots: {"default" => [[raw]]}, recoveries: {"default" => {"pill" => 2}}, suspects: {"default" => ["pill"]})

    assert_equal 1, reaper.reap

    assert_pill_buried(raw, pills)
  end

  # The dashboard's "clear" forgets a queue's name while its jobs are in
  # flight; a pill recovered alone must still be found, buried and its queue
  # named again (in cluster mode the name is how its dead entry is found).
  def test_a_poison_pill_alone_in_its_lot_is_buried_when_its_queue_was_cleared_meanwhile
    raw = payload("pill")
    pills = []
    Deckhand.config.events.on(:poison_pill) { |count| pills << count }
    dead_process(lots: {"default" => [[raw]]}, recoveries: {"default" => {"pill" => 2}}, suspects: {"default" => ["pill"]})
    assert_equal 0, redis.call("SISMEMBER", "queues", "default")

    assert_equal 1, reaper.reap

    assert_pill_buried(raw, pills)
    assert_equal 1, redis.call("SISMEMBER", "queues", "default")
  end

  def test_a_poison_pill_left_behind_by_a_reaper_that_died_is_buried_by_the_next_pass
    redis.call("SADD", "queues", "default")
    redis.call("HSET", Keys.poison("default"), "gone:1:abc|pill", payload("pill"))
    assert_equal 0, reaper.reap
    assert_equal ["pill"], zset("dead").map { |job, _| job["jid"] }
    assert_equal 0, redis.call("HLEN", Keys.poison("default"))
  end

  def test_a_payload_that_is_not_json_goes_back_untouched_and_uncounted
    dead_process(lots: {"default" => [["{not json"]]})
    reaper.reap
    assert_equal ["{not json"], redis.call("LRANGE", "queue:default", 0, -1)
  end

  def test_a_live_process_keeps_its_jobs
    identity = live_process("alive:1:abc", lots: {"default" => [[payload("a")]]})
    assert_equal 0, reaper.reap
    assert_equal 1, inflight_count(identity)
    assert_equal 1, redis.call("HEXISTS", Keys::OWNERS, identity)
    assert_empty jobs_in("default")
  end

  def test_a_reaper_never_recovers_its_own_process
    identity = dead_process("me:1:abc", lots: {"default" => [[payload("a")]]})
    assert_equal 0, reaper(identity: identity).reap
    assert_equal 1, inflight_count(identity)
  end

  def test_one_reaper_acts_at_a_time
    config = new_config(heartbeat_interval: 0.5, heartbeat_ttl: 1, reaper_interval: 2) # a lock of 1.6 s
    dead_process("dead:1:one", lots: {"default" => [[payload("a")]]})
    assert_equal 1, reaper(config).reap
    dead_process("dead:2:two", lots: {"default" => [[payload("b")]]})
    other = reaper(config)
    assert_equal 0, other.reap, "the lock is held for most of an interval"
    wait_for(message: "the lock to expire") { other.reap == 1 }
  end

  def test_the_reaper_claims_its_own_owner_record_back
    with_server do |launcher|
      assert redis.call("HEXISTS", Keys::OWNERS, launcher.identity) == 1
      redis.call("HDEL", Keys::OWNERS, launcher.identity)
      wait_for(message: "the owner record back") { redis.call("HEXISTS", Keys::OWNERS, launcher.identity) == 1 }
    end
  end

  def test_a_live_fleet_runs_a_dead_member_s_jobs_without_any_restart
    dead_process(lots: {"default" => [[payload("orphan1"), payload("orphan2")]]})
    with_server do |launcher|
      wait_for(message: "the orphans to run") { Deckhand::TestJobs.runs.map(&:first).sort == %w[orphan1 orphan2] }
      wait_for(message: "their acknowledgement") { inflight_keys(launcher.identity).empty? }
    end
    assert_equal 0, redis.call("HLEN", Keys::OWNERS), "a clean stop leaves no owner behind"
  end

  private

  def assert_pill_buried(raw, pills)
    assert_equal 0, redis.call("HLEN", Keys.poison("default")), "nothing waits in the poison hash"
    assert_empty jobs_in("default"), "the pill does not go back to its queue"
    dead = redis.call("ZRANGE", "dead", 0, -1)
    assert_equal 1, dead.size
    entry = JSON.parse(dead.first)
    assert_equal "Deckhand::PoisonPill", entry["error_class"]
    assert_equal JSON.parse(raw), entry.except("error_class", "error_message", "failed_at"), "the job's own fields are untouched"
    assert_equal [1], pills, "counted once as a poison pill"
    assert_nil recoveries("pill"), "the count goes with the job"
  end
end
