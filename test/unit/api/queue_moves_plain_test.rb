# frozen_string_literal: true

require "test_helper"
require "stringio"
require "deckhand/api"
require "deckhand/cli/placement_command"

# `deckhand placement` against one plain Redis: it shows the one Redis
# holding every queue; moves are a cluster's, refused with the reason.
class QueueMovesPlainTest < Minitest::Test
  def run_command(*argv)
    out = StringIO.new
    err = StringIO.new
    status = Deckhand::CLI::PlacementCommand.run([*argv, "--redis", Deckhand::RedisHarness.url], out: out, err: err)
    [status, out.string, err.string]
  end

  def test_it_shows_the_one_redis_and_refuses_to_move
    %w[mail default].each { |queue| Deckhand::Client.push("class" => "RecordJob", "queue" => queue, "args" => [1]) }
    status, out, = run_command
    assert_equal 0, status
    assert_match(/100\.0 %  default mail$/, out)

    status, _, err = run_command("rebalance")
    assert_equal 1, status
    assert_match(/queues move between the primaries of a Redis Cluster; this Redis is not one/, err)
    assert_raises(Deckhand::PlacementError) { Deckhand::API.new.queue_moves }
  end
end
