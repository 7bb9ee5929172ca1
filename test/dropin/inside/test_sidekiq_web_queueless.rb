# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_web_queueless_test.rb starts
# it): a job written into the schedule without a "queue", which Sidekiq's
# dashboard files in "default" when told to add it to its queue, while
# Deckhand's scheduler goes on taking it for no job
# (it sets it aside in the dead set, as it was).
require "minitest/autorun"
require "json"
require "sidekiq"
require "sidekiq/api"
require "sidekiq/scheduled"
require "sidekiq/web"
require "rack/mock"

class WebQueuelessInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  # The dashboard's own page posting: same origin.
  def post(path, params) = Rack::MockRequest.new(Sidekiq::Web.new).post(path, "HTTP_SEC_FETCH_SITE" => "same-origin", :params => params)

  # A job as a script writes it straight into Redis: no queue named.
  def write(raw, score: Time.now.to_f + 3600)
    Sidekiq.redis { |conn| conn.zadd("schedule", score, raw) }
    score
  end

  def queueless(jid) = JSON.generate("class" => "HardJob", "args" => ["bob", jid], "jid" => jid)

  def test_add_to_queue_files_a_job_without_a_queue_in_default
    one = write(queueless("a" * 24))
    two = write(queueless("b" * 24))
    assert_equal 302, post("/scheduled/#{one}-#{"a" * 24}", "add_to_queue" => "true").status
    assert_equal 302, post("/scheduled", "key" => ["#{two}-#{"b" * 24}"], "add_to_queue" => "AddToQueue").status
    jobs = Sidekiq::Queue.new("default").to_a
    assert_equal [["HardJob", ["bob", "b" * 24], "default"], ["HardJob", ["bob", "a" * 24], "default"]], jobs.map { |job| [job.klass, job.args, job.queue] }
    assert_equal 0, Sidekiq::ScheduledSet.new.size
  end

  def test_the_scheduler_still_takes_such_an_entry_for_no_job
    raw = queueless("c" * 24)
    write(raw, score: Time.now.to_f - 5)
    Sidekiq.logger.level = Logger::FATAL # it logs the entry it set aside
    Sidekiq::Scheduled::Poller.new(Sidekiq.default_configuration).enqueue
    assert_equal [0, 0], [Sidekiq::ScheduledSet.new.size, Sidekiq::Queue.new("default").size]
    assert_equal [raw], Sidekiq::DeadSet.new.map(&:value)
  end

  def test_what_is_not_a_job_stays_and_a_job_with_a_queue_goes_to_it
    garbage = write("not json at all")
    named = write(JSON.generate("class" => "HardJob", "args" => [], "jid" => "d" * 24, "queue" => "mail"))
    bare = write(JSON.generate("args" => [], "jid" => "e" * 24)) # no class: not a job either
    post("/scheduled", "key" => ["#{named}-#{"d" * 24}", "#{bare}-#{"e" * 24}"], "add_to_queue" => "AddToQueue")
    post("/scheduled/#{garbage}-", "add_to_queue" => "true")
    assert_equal [1, 0], [Sidekiq::Queue.new("mail").size, Sidekiq::Queue.new("default").size]
    assert_equal 2, Sidekiq::ScheduledSet.new.size
  end
end
