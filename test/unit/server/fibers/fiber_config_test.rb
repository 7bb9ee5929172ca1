# frozen_string_literal: true

require "test_helper"

# fibers: true on a capsule: validated, counted as a few Redis users, and
# the async gem loaded by the server only, with the fix named when missing.
class FiberConfigTest < Minitest::Test
  def config = @config ||= new_config(concurrency: 5)

  def test_fibers_must_be_true_or_false
    error = assert_raises(Deckhand::ConfigError) { config.capsule("io", concurrency: 10, queues: ["io"], fibers: "yes") }
    assert_equal 'capsule io: fibers must be true or false, got "yes"', error.message
    refute config.all_capsules.first.fibers?
  end

  def test_a_fiber_capsule_counts_as_twenty_redis_users
    config.capsule("io", concurrency: 1000, queues: ["io"], fibers: true)
    config.capsule("few", concurrency: 3, queues: ["few"], fibers: true)
    config.capsule("mail", concurrency: 7, queues: ["mail"])
    assert_equal 5 + 20 + 3 + 7 + 5, config.store.size
    assert_equal 1015, config.total_concurrency, "the process still publishes its full concurrency"
  end

  def test_partitioning_keeps_a_capsule_on_fibers
    config.capsule("io", concurrency: 10, queues: ["io"], fibers: true)
    config.partitions = {"io" => 2}
    assert config.server_capsules.last.fibers?
  end

  # The Gemfile line it advises holds async below 2.24 on Ruby 3.1 only.
  def test_a_missing_gem_is_named_with_the_fix
    skip_on_jruby("fiber capsules refuse to start there (the next test)")
    errors = %w[3.1.2 3.3.8].to_h do |ruby|
      [ruby, assert_raises(Deckhand::ConfigError) do
        Deckhand::Server::Fibers::Loader.load!("io", library: "deckhand_no_such_library_for_fibers", ruby: ruby)
      end.message]
    end
    assert_match(/\Acapsule io: fibers: true runs its jobs under the async gem's fiber scheduler, which is not installed/, errors["3.3.8"])
    assert_includes errors["3.1.2"], 'add gem "async", ">= 2.21", "< 2.24" to your Gemfile'
    assert_includes errors["3.3.8"], 'add gem "async", ">= 2.21" to your Gemfile'
  end

  def test_an_async_that_breaks_on_ruby_3_1_is_refused_there
    loader = Deckhand::Server::Fibers::Loader
    error = assert_raises(Deckhand::ConfigError) { loader.check_version("io", "2.24.0", ruby: "3.1.2") }
    assert_match(/\Acapsule io: async 2.24.0 does not run on Ruby 3.1.2 .*use gem "async", ">= 2.21", "< 2.24"/, error.message)
    assert_nil loader.check_version("io", "2.24.0", ruby: "3.2.0")
    assert_nil loader.check_version("io", "2.23.1", ruby: "3.1.2")
  end

  def test_jruby_refuses_fiber_capsules_and_mri_loads_async
    if RUBY_ENGINE == "jruby"
      error = assert_raises(Deckhand::ConfigError) { Deckhand::Server::Fibers::Loader.load!("io") }
      assert_match(/capsule io: fiber capsules need CRuby/, error.message)
    else
      Deckhand::Server::Fibers::Loader.load!("io")
      assert defined?(Async::Scheduler)
    end
  end
end
