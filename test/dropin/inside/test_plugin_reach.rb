# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/plugin_reach_test.rb starts it): what
# Sidekiq plugins read and call beyond an application's API, as the plugins
# do it (sidekiq-status, sidekiq-failures, sidekiq-unique-jobs): their
# require lines, the constants they read when they load, the helpers they
# call, Redis the way their code talks to it.
require "minitest/autorun"
require "sidekiq"
require "sidekiq/version"
require "sidekiq/web"
require "sidekiq/job_retry"
require "rack/session"
require "rack/mock"

class ReachJob
  include Sidekiq::Job
end

# What a plugin (or a test's stub) wraps around every push.
module PushSpy
  PUSHED = []

  def push(item)
    PUSHED << [:push, item["args"], item.key?("at")]
    super
  end

  def push_bulk(item)
    PUSHED << [:push_bulk, item["args"]]
    super
  end
end
Sidekiq::Client.prepend(PushSpy)

class PluginReachInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  # sidekiq-status 3.0.3 reads it while loading its server middleware;
  # sidekiq-unique-jobs compares MAJOR.
  def test_the_constants_plugins_read_when_they_load
    assert_equal 25, Sidekiq::JobRetry::DEFAULT_MAX_RETRY_ATTEMPTS
    assert_equal Deckhand::DropIn.version.major, Sidekiq::MAJOR
    assert_equal Sidekiq::MAJOR, Gem::Version.new(Sidekiq::VERSION).segments.first
    assert_equal 1, $LOADED_FEATURES.grep(%r{shims/sidekiq/version\.rb\z}).size, "require \"sidekiq/version\" is a shim"
  end

  # rspec-sidekiq's named queues stub Sidekiq::Client#push; Sidekiq's
  # perform_* push through it.
  def test_every_push_of_a_job_class_goes_through_sidekiq_client
    PushSpy::PUSHED.clear
    ReachJob.perform_async(1)
    ReachJob.perform_in(60, 2)
    ReachJob.set(queue: "low").perform_at(Time.now + 60, 3)
    ReachJob.perform_bulk([[4], [5]])
    assert_equal [[:push, [1], false], [:push, [2], true], [:push, [3], true], [:push_bulk, [[4], [5]]]], PushSpy::PUSHED
    assert_equal 3, Sidekiq::Queue.new.size + Sidekiq::Queue.new("low").size
    assert_equal 2, Sidekiq::ScheduledSet.new.size
  end

  # sidekiq_alive reads Sidekiq's version from RubyGems.
  def test_rubygems_knows_sidekiq_at_drop_in_mode_s_api_level
    spec = Gem.loaded_specs.fetch("sidekiq")
    assert_equal Gem::Version.new(Sidekiq::VERSION), spec.version
    assert_includes spec.summary, "Deckhand's drop-in mode"
    assert Gem.loaded_specs["sidekiq"].version >= Gem::Version.new("7")
  end

  # sidekiq_alive's tests wrap config.capsule in a double and read
  # config.capsules from inside it: capsules must not call capsule.
  def test_capsules_lists_the_default_one_without_calling_capsule
    config = Sidekiq::Config.new
    config.define_singleton_method(:capsule) { |*| raise "capsules called capsule" }
    assert_equal ["default"], config.capsules.keys
    assert_same config.capsules["default"], config.capsules["default"]
  end

  # rspec-sidekiq's be_unique reads Sidekiq Enterprise's options back as
  # declared; nil means not set, as Sidekiq stores it.
  def test_enterprise_unique_options_read_back_as_declared
    klass = Class.new do
      include Sidekiq::Job

      sidekiq_options unique_for: 3600, unique_until: :start
    end
    assert_equal :start, klass.get_sidekiq_options["unique_until"]
    assert_equal "start", klass.deckhand_options["unique_until"], "the job carries it as JSON does"
    child = Class.new(klass) { sidekiq_options on_conflict: :raise }
    assert_equal [:start, :raise], child.get_sidekiq_options.values_at("unique_until", "on_conflict")
    unset = Class.new do
      include Sidekiq::Job

      sidekiq_options unique_for: 60, unique_until: nil
    end
    assert_nil unset.get_sidekiq_options["unique_until"]
    assert_raises(ArgumentError) { Class.new { include Sidekiq::Job }.sidekiq_options(unique_until: :whenever) }
  end

  # sidekiq-failures builds entries with Sidekiq's constructor and
  # redefines it (calling the original) to merge a payload in.
  def test_a_sorted_entry_built_as_sidekiq_builds_one_and_sets_that_survive_a_plugin_s_initialize
    entry = Sidekiq::SortedEntry.new(nil, 12.5, {"class" => "ReachJob", "args" => [1], "jid" => "j1"})
    assert_equal [12.5, "j1", [1], "ReachJob"], [entry.score, entry.jid, entry.args, entry.item["class"]]
    assert_nil entry.parent
    Sidekiq::SortedEntry.class_eval do
      alias_method :super_initialize, :initialize
      define_method(:initialize) do |parent, score, item|
        super_initialize(parent, score, item)
        @item.merge!(@item["payload"]) if @item["payload"]
      end
    end
    merged = Sidekiq::SortedEntry.new(nil, 1, {"class" => "ReachJob", "args" => [], "payload" => {"jid" => "from-payload"}})
    assert_equal "from-payload", merged.item["jid"]
    ReachJob.perform_in(60, 2)
    assert_equal [[2]], Sidekiq::ScheduledSet.new.map(&:args), "the sets build their entries without #initialize"
  ensure
    Sidekiq::SortedEntry.class_eval do
      if method_defined?(:super_initialize)
        alias_method :initialize, :super_initialize
        remove_method :super_initialize
      end
    end
  end

  # sidekiq-failures builds Sidekiq's retry step with a Hash and asks it
  # how many retries a job's option allows.
  def test_a_job_retry_built_with_anything_reads_the_default_configuration
    retrier = Sidekiq::JobRetry.new({})
    assert_equal 5, retrier.send(:retry_attempts_from, 5, Sidekiq::JobRetry::DEFAULT_MAX_RETRY_ATTEMPTS)
    assert_equal 25, retrier.send(:retry_attempts_from, true, Sidekiq::JobRetry::DEFAULT_MAX_RETRY_ATTEMPTS)
    assert_equal Deckhand.config, retrier.instance_variable_get(:@config)
  end

  # sidekiq-status keeps its per_page parameter on its pages' links.
  def test_a_plugin_adds_a_query_parameter_its_links_keep
    Sidekiq::WebHelpers::SAFE_QPARAMS.push("per_page")
    helpers = Object.new.extend(Sidekiq::WebHelpers)
    assert_equal "page=2&per_page=50", helpers.to_query_string("page" => 2, "per_page" => 50, "secret" => "x")
  ensure
    Sidekiq::WebHelpers::SAFE_QPARAMS.delete("per_page")
  end

  # Plugins pass redis-client's keyword flags and subscribe on a connection.
  def test_a_connection_takes_keyword_flags_and_subscribes
    Sidekiq.redis do |conn|
      conn.zadd("plugin:z", 1.5, "a")
      assert_equal [["a", 1.5]], conn.zrange("plugin:z", 0, -1, withscores: true)
      assert_equal [["a", 1.5]], conn.call("ZRANGE", "plugin:z", 0, -1, withscores: true)
      assert_equal "OK", conn.call_v(["SET", "plugin:k", "v"])
      assert_equal ["plugin:k"], conn.scan(match: "plugin:k").to_a
    end
    listener = Thread.new do
      Sidekiq.redis do |conn|
        pubsub = conn.pubsub
        pubsub.call("SUBSCRIBE", "plugin:updates")
        loop do
          type, _channel, message = pubsub.next_event(5)
          next if type == "subscribe"
          pubsub.close
          break message
        end
      end
    end
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 5
    sleep 0.01 until Sidekiq.redis { |conn| conn.call("PUBSUB", "NUMSUB", "plugin:updates").last.to_i == 1 } || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    Sidekiq.redis { |conn| conn.publish("plugin:updates", "done") }
    assert_equal "done", listener.join(5)&.value
    assert_equal "PONG", Sidekiq.redis { |conn| conn.ping }, "the pooled connection serves on after its socket went to the subscription"
  end

  # A session's CSRF secret an application (or a test) put there itself, in
  # Sidekiq's URL-safe Base64 and of any length, is masked as Sidekiq does.
  def test_a_session_secret_set_by_the_application_is_masked
    token = Deckhand::DropIn::SessionToken.new({csrf: [Random.bytes(5)].pack("m0").tr("+/", "-_")})
    masked = token.masked.unpack1("m0")
    assert_equal 10, masked.bytesize
    stock = Deckhand::DropIn::SessionToken.new({})
    assert stock.valid?(stock.masked), "Deckhand's own tokens still check"
  end
end
