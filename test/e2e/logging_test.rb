# frozen_string_literal: true

require_relative "e2e_helper"

# What the CLI writes about each job, as plain text and as JSON.
class LoggingTest < Minitest::Test
  include Deckhand::E2EHelpers

  def test_plain_completion_line_names_the_process_thread_job_and_time
    cli = boot("-c", "1")
    jid = E2E::CountJob.perform_async(1)
    line = cli.wait_for_log(/^.* jid=#{jid} .*done.*$/)[0]
    assert_match(/\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z pid=#{cli.pid} tid=\w+ class=E2E::CountJob jid=#{jid} INFO: done \d+(\.\d+)?ms\z/, line)
  end

  def test_json_format_writes_one_object_per_line
    cli = boot("-c", "1", "--log-format", "json")
    jid = E2E::CountJob.perform_async(1)
    cli.wait_for_log(/"jid":"#{jid}".*"msg":"done/)
    entries = cli.stdout.lines.map { |line| JSON.parse(line) }
    entries.each { |entry| assert_kind_of Hash, entry }
    assert_operator entries.size, :>=, 2
    done = entries.find { |entry| entry.dig("ctx", "jid") == jid }
    assert_equal cli.pid, done["pid"]
    assert_equal "E2E::CountJob", done.dig("ctx", "class")
    assert_equal "INFO", done["lvl"]
    assert_match(/\Adone \d+(\.\d+)?ms\z/, done["msg"])
    assert_match(/\A\w+\z/, done["tid"])
  end
end
