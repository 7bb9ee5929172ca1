# frozen_string_literal: true

require "test_helper"
require "shellwords"
require "deckhand/cli/queue_check"

class QueueCheckTest < Minitest::Test
  def test_the_suggested_command_is_quoted_for_a_shell
    log = StringIO.new
    config = new_config(queues: ["default"])
    config.logger = Logger.new(log)
    Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [1], "queue" => "my queue")
    Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [1], "queue" => "it's;rm")
    Deckhand::CLI::QueueCheck.new(config).warn_unworked
    assert_includes log.string, "queue my queue holds 1 job that no running process works"
    assert_includes log.string, %{(deckhand -q my\\ queue, or queues: in config/deckhand.yml)}
    command = log.string[/\(deckhand -q it.*?, or queues/].delete_prefix("(").delete_suffix(", or queues")
    assert_equal ["deckhand", "-q", "it's;rm"], Shellwords.split(command), "a shell reads the name back whole"
  end
end
