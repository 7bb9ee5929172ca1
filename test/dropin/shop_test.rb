# frozen_string_literal: true

require_relative "dropin_helper"
require_relative "../e2e/e2e_helper"

# The sample Sidekiq application (test/dropin/shop) runs unchanged on Deckhand
# in drop-in mode: its own tests pass, and its jobs run through the real
# `deckhand` CLI with its config/sidekiq.yml.
class DropInShopTest < Minitest::Test
  include Deckhand::DropInHelpers
  include Deckhand::E2EHelpers

  BOOT = File.join(SHOP, "config/boot.rb")
  SIDEKIQ_YML = File.join(SHOP, "config/sidekiq.yml")

  def test_the_shops_own_tests_pass_in_drop_in_mode
    out = assert_dropin_tests_pass("test/test_jobs.rb")
    assert_match(/5 runs/, out)
  end

  # The same file passes on the real sidekiq gem: it is written against Sidekiq's API only.
  def test_the_shops_own_tests_pass_on_the_sidekiq_gem
    # The run's own bundle: the Gemfile's, JRuby's (bin/jruby) or today's
    # stack's (bin/test --ruby 3.3), each with the sidekiq gem.
    env = {"REDIS_URL" => Deckhand::RedisHarness.url, "BUNDLE_GEMFILE" => Bundler.default_gemfile.to_s}
    out, status = Open3.capture2e(env, RbConfig.ruby, "-rbundler/setup", "test/test_jobs.rb", chdir: SHOP)
    assert status.success?, out
    assert_match(/5 runs, \d+ assertions, 0 failures, 0 errors/, out)
  end

  def test_the_shops_jobs_run_through_the_deckhand_cli_with_its_sidekiq_yml
    cli = shop_worker
    info = process_info(cli.identity)
    assert_equal 4, info["concurrency"], "3 from sidekiq.yml, 1 from the initializer's capsule"
    assert_equal %w[critical default mailers reports], info["queues"]
    assert_equal [{"critical" => 2, "default" => 1, "mailers" => 1}, {"reports" => 0}], info["weights"]
    cli.wait_for_log(/shop worker ready/)

    out, status = dropin_ruby("-e", <<~RUBY)
      require "./config/boot"
      Shop::ChargeJob.perform_async(1, 2500)
      Shop::ChargeJob.perform_async(2, -1)
      Shop::ReportJob.for_days(%w[mon tue])
    RUBY
    assert status.success?, out

    wait_for(message: "the shop's jobs to finish") { trace.include?("dead Shop::ChargeJob card declined for order 2") && trace.count { |t| t.start_with?("report ") } == 2 }
    assert_includes trace, "charged 1 2500"
    assert(trace.any? { |t| t.start_with?("receipt 1 buyer-1@example.com ") }, trace.inspect)
    assert_includes trace, "audit Shop::ReceiptJob mailers/acme", "server middleware ran; the client middleware stamped the tenant"
    assert_equal 3, trace.count("error Shop::ChargeJob card declined for order 2"), "the first run and two retries, each to the error handler"
    assert_includes trace, "exhausted 2 card declined for order 2"
    assert_equal ["report mon", "report tue"], trace.grep(/\Areport /).sort

    cli.signal("TSTP")
    cli.wait_for_log(/shop worker quieting/)
    refute_includes cli.output, "shop worker done"
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus
    assert_includes cli.output, "shop worker done"
    assert_operator cli.output.index("shop worker done"), :<, cli.output.index("shop worker exited").to_i, "on(:exit) runs last"
    assert_match(/stopped.*\n.*shop worker exited/, cli.output, "after the jobs are handed back and the process record is gone")
  end

  private

  def shop_worker(env: {})
    cli = deckhand("-C", SIDEKIQ_YML, app: BOOT, env: dropin_env(env))
    cli.identity
    cli
  end

  def trace = redis.call("LRANGE", "shop:trace", 0, -1)
end
