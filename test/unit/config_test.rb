# frozen_string_literal: true

require "test_helper"

class ConfigTest < Minitest::Test
  def test_defaults_work_with_zero_config
    config = Deckhand::Config.new
    assert_equal 10, config.concurrency
    assert_equal ["default"], config.queues
    assert_equal 25, config.timeout
    assert_equal 25, config.max_retries
    assert_equal 10_000, config.dead_max_jobs
    assert_equal :auto, config.timestamps_setting
    assert_equal 1024 * 1024, config.max_payload_bytes
  end

  def test_validation_names_the_bad_value
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(concurrency: "10") }
    assert_includes error.message, "concurrency"
    assert_includes error.message, "\"10\""
    assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(timeout: -1) }
    assert_includes assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(timestamps: :iso) }.message, ":float"
    assert_includes assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(colour: 1) }.message, "unknown setting"
    assert_includes assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(redis: "redis://x") }.message, "Hash"
    assert_includes assert_raises(Deckhand::ConfigError) { Deckhand::Config.new(queues: ["a", ""]) }.message, "empty"
  end

  def test_frozen_after_boot
    config = Deckhand::Config.new.freeze!
    error = assert_raises(Deckhand::ConfigError) { config.concurrency = 5 }
    assert_includes error.message, "frozen"
    assert_raises(Deckhand::ConfigError) { config.capsule("x", concurrency: 1, queues: ["x"]) }
    assert_raises(Deckhand::ConfigError) { config.on_death {} }
    assert_raises(FrozenError) { config.server_middleware.add(Object) }
  end

  def test_capsules
    config = Deckhand::Config.new(concurrency: 5, queues: ["critical,3", "default,1"])
    config.capsule("cpu", concurrency: 1, queues: ["reports"])
    default, cpu = config.all_capsules
    assert_equal %w[critical default], default.queues
    refute default.strict?
    assert_equal({"critical" => 3, "default" => 1}, default.weights)
    assert cpu.strict?
    assert_equal 6, config.total_concurrency
    assert_raises(Deckhand::ConfigError) { config.capsule("default", concurrency: 1, queues: ["x"]) }
  end

  def test_capsule_validation
    caps = Deckhand::Config::Capsule
    assert_includes assert_raises(Deckhand::ConfigError) { caps.new("a b", concurrency: 1, queues: ["q"]) }.message, "capsule name"
    assert_includes assert_raises(Deckhand::ConfigError) { caps.new("a", concurrency: 0, queues: ["q"]) }.message, "concurrency"
    assert_includes assert_raises(Deckhand::ConfigError) { caps.new("a", concurrency: 1, queues: []) }.message, "at least one"
    assert_includes assert_raises(Deckhand::ConfigError) { caps.new("a", concurrency: 1, queues: ["q,x"]) }.message, "weight"
  end

  def test_strict_order_is_fixed_and_weighted_order_varies_by_weight
    strict = Deckhand::Config::Capsule.new("s", concurrency: 1, queues: %w[a b c])
    assert_equal %w[a b c], strict.fetch_order
    weighted = Deckhand::Config::Capsule.new("w", concurrency: 1, queues: ["a,9", "b,1"])
    firsts = Array.new(2000) { weighted.fetch_order.first }.tally
    assert_equal %w[a b], weighted.fetch_order.sort
    assert_operator firsts["a"], :>, firsts["b"] * 4 # 9:1 expected; a loose bound that a bug (1:1) fails
  end

  def test_defaults_are_where_new_configurations_start_and_name_a_bad_key
    saved = Deckhand::Config.defaults
    Deckhand::Config.defaults = saved.merge(timestamps: :float)
    assert_equal :float, Deckhand::Config.new.timestamps
    assert_equal :millis, Deckhand::Config.new(timestamps: :millis).timestamps
    error = assert_raises(Deckhand::ConfigError) { Deckhand::Config.defaults = saved.merge(timestmps: :float) }
    assert_includes error.message, "unknown setting :timestmps"
  ensure
    Deckhand::Config.defaults = saved
  end

  def test_an_attachment_is_built_once_and_held_as_long_as_the_configuration
    config = Deckhand::Config.new
    built = 0
    first = config.attachment(:audit) { built += 1 and Object.new }
    GC.start
    assert_same first, config.attachment(:audit) { built += 1 and Object.new }
    assert_equal 1, built
    refute_same first, Deckhand::Config.new.attachment(:audit) { Object.new }, "each configuration has its own"
  end

  def test_its_inspect_and_errors_about_it_never_show_the_redis_password
    config = Deckhand::Config.new(redis: {url: "redis://:s3cret@127.0.0.1:6379/0", password: "hunter2"})
    require "deckhand/api"
    holder = Deckhand::API.new(config).dead
    shown = [config.inspect, holder.inspect, assert_raises(NoMethodError) { holder.no_such_method }.message]
    shown.each { |text| refute_match(/s3cret|hunter2/, text) }
    assert_equal %(#<Deckhand::Config concurrency=#{config.concurrency} queues=["default"]>), config.inspect
  end
end
