# frozen_string_literal: true

require "test_helper"
require "stringio"
require "deckhand/cli/web_command"

class WebCommandTest < Minitest::Test
  def run_command(*argv)
    out = StringIO.new
    err = StringIO.new
    status = Deckhand::CLI::WebCommand.run(argv, out: out, err: err)
    [status, out.string, err.string]
  end

  def test_help
    status, out, = run_command("--help")
    assert_equal 0, status
    assert_includes out, "Usage: deckhand web"
    assert_includes out, "default: 127.0.0.1"
  end

  def test_bad_options_and_unreachable_redis_fail_with_the_reason
    status, _, err = run_command("--port", "nope")
    assert_equal 1, status
    assert_includes err, "deckhand web: invalid argument: --port nope"
    status, _, err = run_command("--redis", "redis://127.0.0.1:#{Deckhand::DevRedis.free_port}/0")
    assert_equal 1, status
    assert_includes err, "refused the connection"
  end
end
