# frozen_string_literal: true

require_relative "dropin_helper"
require_relative "../e2e/e2e_helper"

# A Rails application written for the sidekiq gem (`require "sidekiq/rails"`,
# `queue_adapter = :sidekiq`; continuing_app/) boots and runs its Active Job
# jobs on `deckhand` in drop-in mode, with no sidekiq gem anywhere and
# drop-in mode loaded before Rails: on Rails 8.1 and on 7.2. On Rails 8.1, a
# job continuation interrupted by TERM resumes on another server.
class DropInContinuingAppTest < Minitest::Test
  include Deckhand::DropInHelpers
  include Deckhand::E2EHelpers

  APP = File.expand_path("continuing_app", __dir__)

  def test_the_app_boots_with_sidekiqs_adapter_and_its_jobs_run_on_deckhand
    cli = deckhand(app: APP, env: dropin_env)
    cli.identity
    runner(<<~RUBY)
      HelloJob.perform_later("ada")
      puts ActiveJob::Base.queue_adapter.class.name
    RUBY
    entry = wait_for(message: "the job to run on Deckhand") { log.find { |e| e.first == "hello" } }
    assert_equal ["hello", "ada", "ActiveJob::QueueAdapters::SidekiqAdapter", cli.pid], entry.values_at(0, 1, 3, 4)
    assert_match(/\A\h{24}\z/, entry[2], "provider_job_id is Deckhand's jid")
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus, cli.output
    refute_match(/not part of the bundle|Gem::LoadError|NameError/, cli.output)
  end

  if Gem.loaded_specs["activejob"].version >= Gem::Version.new("8.1")
    def test_a_continuation_stopped_by_term_resumes_on_another_server
      first = deckhand(app: APP, env: dropin_env)
      first.identity
      runner("StepsJob.perform_later(30)")
      wait_for(message: "a few items done on the first server") { items.size >= 3 }
      first.signal("TERM")
      assert_equal 0, first.wait_exit(timeout: 15).exitstatus, first.output
      before = items
      assert_operator before.size, :<, 30, "stopped part way"
      assert_equal [first.pid], before.map(&:last).uniq

      second = deckhand(app: APP, env: dropin_env)
      done = wait_for(timeout: 30, message: "the job to finish on the second server") { log.find { |e| e.first == "done" } }
      assert_equal (0...30).to_a, items.map { |e| e[1] }, "every item once, in order: resumed from the saved cursor"
      assert_equal [second.pid], (items - before).map(&:last).uniq
      assert_equal ["done", 1, second.pid], done, "resumed once"
      second.signal("TERM")
      assert_equal 0, second.wait_exit(timeout: 15).exitstatus, second.output
      assert_equal [0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead")]
    end
  end

  private

  def runner(code)
    out, status = dropin_ruby("-e", "require './config/environment'\n#{code}", chdir: APP)
    assert status.success?, out
    out
  end

  def log = redis.call("LRANGE", "app:log", 0, -1).map { |raw| JSON.parse(raw) }

  def items = log.select { |e| e.first == "item" }
end
