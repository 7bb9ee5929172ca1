# frozen_string_literal: true

module Deckhand
  # Due retries and scheduled jobs of a fair queue go into their tenant's
  # turn (docs/fair-queues.md), in plain and cluster mode alike: include in
  # a test that sets `Deckhand.config` to a config with `fair_queues` for
  # "reports" and answers `redis` and `keys`.
  module FairReturnsTests
    def fair_config(**settings) = new_config(fair_queues: {"reports" => {}, "heavy" => {weights: {"b" => 4}}}, **settings)

    def backlog(queue, tenant, count)
      Deckhand::Client.push_bulk("class" => "RecordJob", "queue" => queue, "tenant" => tenant, "args" => Array.new(count) { |i| [tenant, i] })
    end

    def schedule(later = 120) = Deckhand::Store::Scripts::Schedule.new(Deckhand.config.store, fair: Deckhand.config.fair_queues).call(now: Time.now.to_f + later, limit: 100, stamp: 1)

    # [tenant, score] of the queue's tenants' jobs, lowest score first.
    def turns(queue) = redis.call("ZRANGE", keys.fair_jobs(queue), 0, -1, "WITHSCORES").map { |member, score| [member.split("\n", 2).first, score.to_f] }

    def test_a_due_scheduled_job_of_a_tenant_waits_its_turn_not_ahead_of_the_backlog
      backlog("reports", "a", 20) # the first goes onto the queue (it was empty), 19 wait their turn
      jid = Deckhand::Client.push("class" => "RecordJob", "queue" => "reports", "tenant" => "b", "args" => ["b", 0], "at" => Time.now.to_f + 60)
      assert_equal [1, 0], schedule.first(2)
      assert_equal 1, redis.call("LLEN", keys.queue("reports")), "only a's first job is on the queue itself"
      tenants = turns("reports").map(&:first)
      assert_equal 20, tenants.size
      assert_operator tenants.index("b"), :<=, 1, "b's job is served at the front of the line, in its turn"
      member = redis.call("ZRANGE", keys.fair_jobs("reports"), 0, -1).find { |raw| raw.start_with?("b\n") }
      job = JSON.parse(member.split("\n", 2).last)
      assert_equal [jid, 1], [job["jid"], job["enqueued_at"]]
      assert_equal "1", redis.call("HGET", keys.fair_tenants("reports"), "n:b")
      assert_equal 0, redis.call("ZCARD", keys.scheduled_set("reports"))
    end

    def test_a_server_s_scheduler_files_a_due_retry_in_its_tenant_s_turn
      Deckhand.config = fair_config(queues: ["reports"])
      backlog("reports", "a", 5)
      retry_job = JSON.generate("class" => "RecordJob", "queue" => "reports", "jid" => "r1", "tenant" => "b", "args" => ["b"], "enqueued_at" => 5)
      redis.call("ZADD", keys.retry_set("reports"), 1, retry_job)
      scheduler = Deckhand::Server::Chores::Scheduler.new(config: Deckhand.config, store: Deckhand.config.store, process_count: -> { 1 })
      assert_equal [1, 0], scheduler.enqueue_due.first(2)
      assert_includes redis.call("ZRANGE", keys.fair_jobs("reports"), 0, -1), "b\n#{retry_job}"
      assert_equal 1, redis.call("LLEN", keys.queue("reports"))
    end

    # Marks each job it sees.
    class DueMark
      def call(_klass, job, *)
        job["marked"] = true
        yield
      end
    end

    def test_with_client_middleware_a_due_retry_goes_changed_into_its_tenant_s_turn
      Deckhand.config = fair_config(queues: ["reports"])
      backlog("reports", "a", 5)
      Deckhand.config.client_middleware.add(DueMark)
      retry_job = JSON.generate("class" => "RecordJob", "queue" => "reports", "jid" => "r1", "tenant" => "b", "args" => ["b"], "enqueued_at" => 5)
      redis.call("ZADD", keys.retry_set("reports"), 1, retry_job)
      scheduler = Deckhand::Server::Chores::Scheduler.new(config: Deckhand.config, store: Deckhand.config.store, process_count: -> { 1 })
      assert_equal [1, 0], scheduler.enqueue_due.first(2)
      waiting = redis.call("ZRANGE", keys.fair_jobs("reports"), 0, -1).select { |member| member.start_with?("b\n") }
      assert_equal [["r1", true]], waiting.map { |member| JSON.parse(member.split("\n", 2).last).values_at("jid", "marked") }
      assert_equal 1, redis.call("LLEN", keys.queue("reports")), "only a's first job is on the queue itself"
      assert_equal 0, redis.call("ZCARD", keys.retry_set("reports"))
    end

    def test_a_unique_job_of_a_tenant_takes_its_lock_and_waits_its_turn
      backlog("reports", "a", 10)
      job = {"class" => "RecordJob", "queue" => "reports", "tenant" => "b", "args" => ["b"], "unique_for" => 600}
      jid = Deckhand::Client.push(job)
      refute_nil jid
      assert_nil Deckhand::Client.push(job), "the same job again: its lock is held"
      assert_equal 1, redis.call("LLEN", keys.queue("reports")), "only a's first job is on the queue itself"
      waiting = redis.call("ZRANGE", keys.fair_jobs("reports"), 0, -1).select { |member| member.start_with?("b\n") }
      assert_equal [jid], waiting.map { |member| JSON.parse(member.split("\n", 2).last)["jid"] }
      assert_operator turns("reports").map(&:first).index("b"), :<=, 1
      assert_equal jid, redis.call("GET", JSON.parse(waiting.first.split("\n", 2).last)["unique_key"])
      later = Deckhand::Client.push(job.merge("args" => ["later"], "at" => Time.now.to_f + 60))
      assert_equal 1, redis.call("ZCARD", keys.scheduled_set("reports")), "a scheduled unique job waits in the schedule (#{later})"
    end

    def test_a_due_retry_of_a_tenant_takes_its_weight
      backlog("heavy", "a", 10)
      retries = Array.new(4) { |i| JSON.generate("class" => "RecordJob", "queue" => "heavy", "jid" => "r#{i}", "tenant" => "b", "args" => ["b", i], "retry_count" => 0, "enqueued_at" => 5) }
      redis.call("ZADD", keys.retry_set("heavy"), *retries.flat_map { |raw| [1, raw] })
      assert_equal 4, schedule(0).first
      b = turns("heavy").filter_map { |tenant, score| score if tenant == "b" }
      assert_equal [0.25, 0.5, 0.75, 1.0], b, "a weight of 4: four of b's jobs per one of a's"
      assert_equal 0, redis.call("ZCARD", keys.retry_set("heavy"))
      assert_equal retries.sort, redis.call("ZRANGE", keys.fair_jobs("heavy"), 0, -1).grep(/\Ab\n/).map { |m| m.split("\n", 2).last }.sort, "moved as they were"
    end

    def test_jobs_of_no_tenant_and_other_queues_go_onto_their_queue
      backlog("reports", "a", 5)
      Deckhand::Client.push("class" => "RecordJob", "queue" => "reports", "args" => [1], "at" => Time.now.to_f + 60)
      Deckhand::Client.push("class" => "RecordJob", "queue" => "plain", "tenant" => "b", "args" => [2], "at" => Time.now.to_f + 60)
      assert_equal 2, schedule.first
      assert_equal 2, redis.call("LLEN", keys.queue("reports"))
      assert_equal 1, redis.call("LLEN", keys.queue("plain"))
      assert_equal 4, redis.call("ZCARD", keys.fair_jobs("reports"))
    end

    def test_an_idle_fair_queue_takes_a_due_tenant_s_job_onto_the_queue_itself
      Deckhand::Client.push("class" => "RecordJob", "queue" => "reports", "tenant" => "b", "args" => [1], "at" => Time.now.to_f + 60)
      assert_equal 1, schedule.first
      assert_equal 1, redis.call("LLEN", keys.queue("reports")), "nobody waits to go first: an idle server's wait takes it at once"
      assert_equal 0, redis.call("EXISTS", keys.fair_jobs("reports"))
    end

    def test_a_tenants_key_of_another_type_refuses_before_the_entry_moves
      backlog("reports", "a", 3)
      redis.call("DEL", keys.fair_tenants("reports"))
      redis.call("SET", keys.fair_tenants("reports"), "x")
      Deckhand::Client.push("class" => "RecordJob", "queue" => "reports", "tenant" => "b", "args" => [1], "at" => Time.now.to_f + 60)
      assert_raises(Deckhand::Error) { schedule }
      assert_equal 1, redis.call("ZCARD", keys.scheduled_set("reports")), "the entry stays where it was"
    end
  end
end
