# frozen_string_literal: true

require_relative "../support/iterable/iterable_helper"
require "active_record"
require "deckhand/api"
require_relative "doc_examples"

# Walks 0...10_000 and hits a deadlock at item 5,000 on its first run and at
# 5,812 on its second, as docs/iterable.md's job does; its retries wait ten
# minutes, so each stays in the retry set until the test sends it back.
class DocsDeadlockingJob
  include Deckhand::IterableJob

  deckhand_retry_in { |_count, _error, _payload| 600 }

  def build_enumerator(cursor:) = array_enumerator((0...10_000).to_a, cursor: cursor)

  def each_iteration(item)
    raise ActiveRecord::Deadlocked, "deadlock detected" if item == (deckhand_payload["retry_count"] ? 5812 : 5000)
  end
end

# The iterable guide's data API example, read after two real runs of a job
# that a server interrupted with an error each time.
class DocsIterableExampleTest < Minitest::Test
  include IterableTestSetup

  def fail_once
    with_server(iterable_config(scheduler_interval: 600)) do
      wait_for(message: "the retry", timeout: 60) { redis.call("ZCARD", "retry") == 1 }
    rescue Minitest::Assertion => e
      raise e, "#{e.message}\n#{whereabouts}"
    end
  end

  # Where the job may be instead, and every server the fleet lists with its
  # host and pid: a server another test left behind takes jobs too.
  def whereabouts
    servers = redis.call("SMEMBERS", "processes").map { |identity| "#{identity} #{redis.call("HGET", identity, "info")}" }
    landing = redis.call("KEYS", "*landing*").to_h { |key| [key, redis.call("LRANGE", key, 0, -1)] }
    ["queue:default #{redis.call("LRANGE", "queue:default", 0, -1).inspect}", "dead #{redis.call("ZRANGE", "dead", 0, -1).inspect}",
      "landing lists #{landing.inspect}", "servers:", *servers].join("\n")
  end

  def test_a_jobs_interrupted_runs_through_the_data_api
    jid = DocsDeadlockingJob.perform_async
    fail_once
    Deckhand::API.new.retries.retry_all
    Deckhand::Lifecycle.reset! # the first server's stop marked the process as stopping
    fail_once
    block = Deckhand::DocExamples.fetch("iterable-runs-api")
    # Each `expr # => value` line of the example, its value kept beside the claim.
    claims = block.code.scan(/# => (.*)$/).flatten.map { |value| JSON.parse(value) }
    code = block.code.gsub(/^(.+?)\s+# => .*$/) { "SEEN << (#{$1})" }
    sandbox = Module.new
    sandbox.const_set(:SEEN, [])
    sandbox.define_singleton_method(:jid) { jid }
    iteration = sandbox.module_eval(code + "iteration\n", block.path, block.line)
    assert_equal claims, sandbox::SEEN
    assert_equal [2, "error", "ActiveRecord::Deadlocked", 5812], [iteration.interruptions, *iteration.runs.last.then { |r| [r.reason, r.error, r.cursor] }]
    assert_equal [5000, 812], iteration.runs.map(&:steps)
  end
end
