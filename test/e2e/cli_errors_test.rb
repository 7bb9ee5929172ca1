# frozen_string_literal: true

require_relative "e2e_helper"

# What the command line prints when Redis cannot be used: one line naming the
# problem and the fix (and its cause when that adds something), not a backtrace.
class CliErrorsTest < Minitest::Test
  include Deckhand::E2EHelpers

  def teardown
    super
  ensure
    @guarded&.stop
    FileUtils.rm_rf(@guarded_dir) if @guarded_dir
  end

  def test_a_redis_url_without_a_scheme
    cli = deckhand_run("-r", APP, env: {"REDIS_URL" => "localhost:6379"})
    assert_equal 1, cli.status.exitstatus
    assert_equal 1, cli.stderr.lines.size, cli.stderr
    assert_includes cli.stderr, "deckhand: the Redis url \"localhost:6379\" (REDIS_URL or redis: {url:}) has no scheme: write redis://localhost:6379"
  end

  def test_a_redis_that_wants_a_password
    @guarded_dir = Dir.mktmpdir("deckhand-guarded")
    @guarded = Deckhand::DevRedis.start(dir: @guarded_dir, persistent: false)
    RedisClient.new(url: @guarded.url).then { |admin| admin.call("CONFIG", "SET", "requirepass", "sekret") && admin.close }
    cli = deckhand_run("-r", APP, env: {"REDIS_URL" => @guarded.url})
    assert_equal 1, cli.status.exitstatus
    assert_operator cli.stderr.lines.size, :<=, 2, cli.stderr
    assert_match(/\Adeckhand: Redis at #{Regexp.escape(@guarded.url)} refused .*password/, cli.stderr)
    refute_match(/\.rb:\d+:in /, cli.stderr, "a backtrace")
  end

  def test_web_says_the_same_in_one_line
    cli = deckhand_run("web", "-p", "0", env: {"REDIS_URL" => "127.0.0.1:6379"})
    assert_equal 1, cli.status.exitstatus
    assert_equal 1, cli.stderr.lines.size, cli.stderr
    assert_includes cli.stderr, "deckhand web: the Redis url \"127.0.0.1:6379\""
  end

  def test_one_thread_is_one_thread
    assert_includes boot("-c", "1").output, "default(1 thread: default)"
  end
end
