# frozen_string_literal: true

require "test_helper"

# A partitioned queue's throttle, split over its partitions without Redis:
# the shares each list enforces, what the configuration refuses, and a
# server's limits when a run-time change cannot be split.
class PartitionedThrottleTest < Minitest::Test
  Throttle = Deckhand::Config::Throttle
  Partitions = Deckhand::Config::Partitions
  ThrottleLimits = Deckhand::Server::Fetch::ThrottleLimits

  Ledger = Struct.new(:released) do
    def take_released = released
  end

  def limits(queues, partitions, log: StringIO.new)
    ThrottleLimits.new(Throttle.new(queues), logger: Logger.new(log), partitions: Partitions.new(partitions))
  end

  def test_concurrency_shares_add_up_to_the_limit_and_differ_by_one_at_most
    [[6, 6], [7, 3], [12, 5], [64, 64], [100, 7], [3, 1]].each do |n, count|
      limit = Throttle.limit!("q", {concurrency: n})
      shares = Array.new(count) { |index| limit.share(index, count).concurrency }
      assert_equal n, shares.sum, "#{n} over #{count}: #{shares}"
      assert_operator shares.max - shares.min, :<=, 1, "#{n} over #{count}: #{shares}"
      assert_equal shares.sort.reverse, shares, "the first partitions take the remainder"
      assert shares.all?(&:positive?)
    end
    assert_equal [1, 1, 1], Array.new(3) { |index| Throttle.limit!("q", {concurrency: 2}).share(index, 3).concurrency }, "never 0: 0 is uncapped"
  end

  def test_a_rate_is_divided_evenly_and_each_share_may_still_let_a_job_leave
    limit = Throttle.limit!("q", {rate: 60, per: :minute, concurrency: 7})
    shares = Array.new(6) { |index| limit.share(index, 6) }
    assert_equal [10.0] * 6, shares.map(&:rate)
    assert_equal [60] * 6, shares.map(&:per)
    assert_in_delta limit.rate_per_ms, shares.sum(&:rate_per_ms), 1e-12
    assert_equal [1] * 6, shares.map(&:burst), "a burst of one job at least"
    assert_equal [2, 1, 1, 1, 1, 1], shares.map(&:concurrency)
    assert_equal({"rate" => 60, "per" => 60, "concurrency" => 7}, limit.to_h, "the queue's limit is untouched")
    assert_same limit, limit.share(0, 1)
    assert_equal 3, Throttle.limit!("q", {rate: 100, per: :second}).share(3, 4).burst, "a tenth of a second of the share's 25 a second"
  end

  def test_the_configuration_refuses_fewer_slots_than_partitions_whichever_is_set_first
    message = /throttle for queue "default": concurrency 2 cannot be split over its 3 partitions .*raise concurrency to at least 3 or use fewer partitions/
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(partitions: {"default" => 3}, throttle: {"default" => {concurrency: 2}}) }
    assert_match message, error.message
    config = Deckhand::Config.new(throttle: {"default" => {concurrency: 2}})
    assert_match message, assert_raises(Deckhand::ConfigError) { config.partitions = {"default" => 3} }.message
    config = Deckhand::Config.new(partitions: {"default" => 3}, throttle: {"default" => {concurrency: 3}, "other" => {concurrency: 1}})
    assert_equal({"concurrency" => 3}, config.throttle["default"].to_h)
    Deckhand::Config.new(partitions: {"default" => 3}, throttle: {"default" => {rate: 1, per: :hour}}) # a rate splits whatever its size
  end

  def test_a_server_enforces_each_partition_s_share_on_its_list
    throttles = limits({"default" => {concurrency: 7, rate: 30}, "mail" => {concurrency: 1}}, {"default" => 3})
    assert_equal %w[default default~p1 default~p2 mail], throttles.limits.keys.sort
    assert_equal [3, 2, 2], %w[default default~p1 default~p2].map { |name| throttles.limits[name].concurrency }
    assert_equal [10.0] * 3, %w[default default~p1 default~p2].map { |name| throttles.limits[name].rate }
    assert_equal 1, throttles.limits["mail"].concurrency
    queues = Partitions.new("default" => 3).expand(Deckhand::Config::Capsule.new("default", concurrency: 5, queues: %w[mail default low])).queues
    args = Deckhand::Server::Fetch::ThrottleSlots.new(throttles, queues).args(Ledger.new(Hash.new(0)))
    assert_equal [[0, 1], [1, 3], [2, 2], [3, 2]], args.map { |index, limit, _| [index, limit.concurrency] }, "mail, then each partition: low is not throttled"
  end

  def test_a_run_time_change_too_small_to_split_gives_each_partition_one_slot_and_says_so
    log = StringIO.new
    throttles = limits({"default" => {concurrency: 6}}, {"default" => 3}, log: log)
    throttles.update({"default" => {"concurrency" => 2}})
    assert_equal [1, 1, 1], %w[default default~p1 default~p2].map { |name| throttles.limits[name].concurrency }
    assert_match(/ERROR .*queue default cannot be split as set: .*concurrency 2 cannot be split over its 3 partitions.*raise concurrency to at least 3/, log.string)
    assert_match(/each partition runs 1 at a time \(3 at once in all\)/, log.string)
    assert_match(/queue throttles: default concurrency=2$/, log.string, "the log names the queue's limit, not its shares")
    log.truncate(0)
    throttles.update({"default" => {"concurrency" => 5}, "default~p1" => {"concurrency" => 50}, "mail~p1" => {"concurrency" => 1}})
    assert_equal [2, 2, 1], %w[default default~p1 default~p2].map { |name| throttles.limits[name].concurrency }, "the queue's shares, not a partition's own"
    assert_equal 1, throttles.limits["mail~p1"].concurrency, "a queue named so, not partitioned here"
    refute_match(/ERROR/, log.string)
    throttles.update({"default" => {}, "default~p2" => {"concurrency" => 1}})
    assert_equal [], %w[default default~p1 default~p2].filter_map { |name| throttles.limits[name] }, "the queue's limit or none"
  end
end
