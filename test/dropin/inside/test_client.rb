# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq_public_api_test.rb starts it):
# Sidekiq::Client's pushes as Sidekiq 7.3 makes them.
require "minitest/autorun"
require "json"
require "date"
require "sidekiq"
require "sidekiq/api"

class ClientPushJob
  include Sidekiq::Job

  def perform(*) = nil
end

class ClientInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def test_an_at_already_past_goes_through_the_schedule_as_in_sidekiq
    times = [Time.utc(2019, 1, 1), Time.utc(2019, 1, 2)]
    jids = Sidekiq::Client.push_bulk("class" => ClientPushJob, "args" => [[1], [2]], "at" => times.map(&:to_f))
    assert_equal times, jids.map { |jid| Sidekiq::ScheduledSet.new.find_job(jid).at.utc }
    jid = Sidekiq::Client.push("class" => ClientPushJob, "args" => [3], "at" => Time.now.to_f - 5)
    assert Sidekiq::ScheduledSet.new.find_job(jid)
    ClientPushJob.perform_at(Time.now - 5, 4)
    ClientPushJob.perform_in(-5, 5)
    assert_equal [[5], [4]], Sidekiq::Queue.new.map(&:args), "perform_at and perform_in a past time push to the queue, as in Sidekiq"
    bulk = ClientPushJob.perform_bulk([[6], [7]], at: [Time.now.to_f - 5, 1])
    assert bulk.all? { |bulk_jid| Sidekiq::ScheduledSet.new.find_job(bulk_jid) }, "perform_bulk's times go through the schedule, as Sidekiq::Client.push_bulk's"
  end

  def test_bulk_args_may_be_lazy
    jids = Sidekiq::Client.push_bulk("class" => "ClientPushJob", "args" => (1..7).lazy.zip, "batch_size" => 3)
    assert_equal 7, jids.size
    assert_equal 3, ClientPushJob.perform_bulk((1..3).lazy.zip).size
    assert_equal 10, Sidekiq::Queue.new.size
  end

  def test_bad_items_raise_argument_error
    [{"class" => "X"}, {"class" => 42, "args" => []}, {"class" => "X", "args" => :no},
      {"class" => "X", "args" => [], "at" => :soon}, {"class" => "X", "args" => [], "tags" => "a"},
      {"class" => "X", "args" => [], "queue" => ""}].each do |item|
      assert_raises(ArgumentError, item.inspect) { Sidekiq::Client.push(item) }
    end
    assert_raises(ArgumentError) { Sidekiq::Client.push_bulk("class" => "X", "args" => [[1], 2]) }
    error = assert_raises(ArgumentError) { ClientPushJob.perform_async(:symbol) }
    assert_includes error.message, "Symbol"
    assert_equal 0, Sidekiq::Queue.new.size
  end

  def test_enqueue_to_in_and_the_defaults
    Sidekiq::Client.enqueue_to_in(:later, 60, ClientPushJob, 1)
    Sidekiq::Client.enqueue_to_in(:later, -3, ClientPushJob, 2)
    assert_equal [[2]], Sidekiq::Queue.new("later").map(&:args)
    assert_equal ["later"], Sidekiq::ScheduledSet.new.map(&:queue)
    assert_equal({"retry" => true, "queue" => "default"}, Sidekiq.default_job_options)
    assert_equal ClientPushJob.get_sidekiq_options, Sidekiq.default_job_options
    assert_equal Gem::Version.new(Sidekiq::VERSION), Sidekiq.gem_version
  end

  def test_default_job_options_are_what_every_job_starts_from
    Sidekiq.default_job_options = {backtrace: 3}
    Sidekiq.default_job_options = {"retry" => 5}
    assert_equal({"retry" => 5, "queue" => "default", "backtrace" => 3}, Sidekiq.default_job_options)
    late = Class.new(ClientPushJob) { sidekiq_options queue: "late" }
    assert_equal({"retry" => 5, "queue" => "late", "backtrace" => 3}, late.get_sidekiq_options, "a class's own options on top")
    ClientPushJob.perform_async(1)
    Sidekiq::Client.push("class" => "SomeClassElsewhere", "args" => [2])
    Sidekiq::Client.push("class" => "SomeClassElsewhere", "args" => [3], "retry" => false)
    assert_equal [[5, 3], [5, 3], [false, 3]], Sidekiq::Queue.new.map { |job| job.item.values_at("retry", "backtrace") }.reverse
  ensure
    Sidekiq.default_job_options.replace("retry" => true, "queue" => "default")
  end

  def test_a_client_may_have_middleware_of_its_own
    odd_only = Class.new { define_method(:call) { |_klass, job, _queue, _redis, &block| job["args"].first.odd? && block.call } }
    client = Sidekiq::Client.new
    client.middleware { |chain| chain.add odd_only }
    assert client.middleware.exists?(odd_only)
    refute Sidekiq.default_configuration.client_middleware.exists?(odd_only), "the configuration's chain is left alone"
    assert_nil client.push("class" => ClientPushJob, "args" => [2])
    jids = client.push_bulk("class" => ClientPushJob, "args" => [[1], [2], [3]])
    assert_equal [24, 0, 24], jids.map { |jid| jid.to_s.size }
    assert_equal 3, Sidekiq::Client.new.push_bulk("class" => ClientPushJob, "args" => [[2], [4], [6]]).compact.size
    assert_equal 5, Sidekiq::Queue.new.size
  end

  def test_strict_args_refuses_what_json_would_change_unless_turned_off
    child_hash = Class.new(Hash)
    [:symbol, Date.new(2021, 1, 1), {:some => "hash", "with" => "keys"}, child_hash.new, Struct.new(:x).new(0)].each do |arg|
      error = assert_raises(ArgumentError, arg.inspect) { ClientPushJob.perform_async(arg) }
      assert_includes error.message, "Job arguments to ClientPushJob must be native JSON types, but "
    end
    assert_includes assert_raises(ArgumentError) { ClientPushJob.perform_async(:symbol) }.message, "but :symbol is a Symbol"
    assert_raises(ArgumentError) { Sidekiq::Client.push("class" => ClientPushJob, "args" => [{a: 1}]) }
    assert_equal 0, Sidekiq::Queue.new.size
    Sidekiq.strict_args!(false)
    ClientPushJob.perform_async(:symbol, Date.new(2021, 1, 1), {some: "hash"})
    ClientPushJob.perform_bulk([[:a], [:b]])
    Sidekiq::Client.push("class" => ClientPushJob, "args" => [:c])
    assert_equal [["symbol", "2021-01-01", {"some" => "hash"}], ["a"], ["b"], ["c"]], Sidekiq::Queue.new.map(&:args).reverse
    assert_raises(ArgumentError) { Sidekiq.strict_args!(:sometimes) }
  ensure
    Sidekiq.strict_args!
  end
end
