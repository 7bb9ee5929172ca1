# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require_relative "../../torture/support/fleet"
require_relative "../../torture/support/ledger"
require_relative "../../torture/support/clock_books"

# Scenario 17's books (Torture::ClockBooks) on a real ledger: a job run a
# second time is a double unless the server of its first run was SIGKILLed
# before, or logged that run's failure (a failed job is retried, as any is:
# on a loaded machine the job's own write to the books can time out). A
# double names what became of each server and what it logged of the job.
# A late scheduled job tells the scheduler's part of its lateness.
class TortureClockBooksTest < Minitest::Test
  JID = "745812eba02fa67167a962cb"

  def setup
    super
    @dir = Dir.mktmpdir("clock-books")
    @ledger = Torture::Ledger.new(Deckhand::RedisHarness.url)
    @fleet = Torture::Fleet.new(dir: @dir, redis_url: Deckhand::RedisHarness.url, ledger_url: Deckhand::RedisHarness.url)
    @first = member(2582, "fail 1003.2ms: Torture::BooksUnreachable: a write to the books failed: RedisClient::ReadTimeoutError: Waited 1.0 seconds")
    @second = member(2708, "done 12.0ms")
    start(@first, 1000.0)
    start(@second, 1022.81)
  end

  def teardown
    @ledger.close
    FileUtils.rm_rf(@dir)
    super
  end

  def test_a_rerun_after_a_logged_failure_is_a_retry_not_a_double
    books = Torture::ClockBooks.new(@ledger, @fleet)
    assert_equal [0, 0, 1], books.doubled
    assert books.books_failed?(JID)
    refute books.books_failed?("0123456789abcdef01234567")
    assert_equal ["Torture::BooksUnreachable: a write to the books failed: RedisClient::ReadTimeoutError: Waited 1.0 seconds"],
      books.failure_messages
  end

  def test_a_job_failed_before_its_server_was_killed_waits_for_its_retry_not_for_recovery
    @fleet.kills << [2582, 1001.0]
    assert_equal [0, []], Torture::ClockBooks.new(@ledger, @fleet).reruns(@fleet.kills)
    File.write(@first.log, "")
    assert_equal [1, [21.81]], Torture::ClockBooks.new(@ledger, @fleet).reruns(@fleet.kills).then { |n, d| [n, d.map { |x| x.round(2) }] }
  end

  def test_a_rerun_with_no_kill_nor_failure_is_a_double_told_with_each_servers_fate_and_lines
    File.write(@first.log, line(2582, "done 5.0ms"))
    books = Torture::ClockBooks.new(@ledger, @fleet)
    assert_equal [1, 0, 0], books.doubled
    example = books.doubled_examples.first
    assert_includes example, "2582@0.00 (never killed; logged \"INFO: done 5.0ms\")"
    assert_includes example, "2708@22.81 (never killed; logged \"INFO: done 12.0ms\")"
  end

  def test_a_rerun_after_a_kill_is_explained
    File.write(@first.log, "")
    @fleet.kills << [2582, 1001.0]
    assert_equal [0, 1, 0], Torture::ClockBooks.new(@ledger, @fleet).doubled
  end

  def test_a_late_scheduled_job_tells_how_late_and_how_late_it_was_queued
    stamped(@first, "0123456789abcdef01234567", 1020.5, queued: 1020.2)
    due = {JID => 999.5, "0123456789abcdef01234567" => 1014.0, "ffffffffffffffffffffffff" => 1014.0}
    early, lates = Torture::ClockBooks.new(@ledger, @fleet).timing(due, late: 5)
    assert_equal 0, early, "its first start counts: the on-time one is neither early nor late"
    assert_equal [[1014.0, 6.5, 6.2], [1014.0, nil, nil]], lates.map { |_, at, late, moved| [at, late&.round(2), moved&.round(2)] }
    early, = Torture::ClockBooks.new(@ledger, @fleet).timing(due.merge(JID => 1001.5), late: 5)
    assert_equal 1, early, "more than a second before its time"
  end

  private

  def member(pid, message)
    log = File.join(@dir, "server-#{pid}.log")
    File.write(log, line(pid, message))
    Torture::Fleet::Member.new(pid, log, 0.0, nil, "vm:#{pid}:abc", {env: {}}).tap { |m| @fleet.members << m }
  end

  def line(pid, message)
    level = message.start_with?("fail") ? "WARN" : "INFO"
    "2026-11-29T08:40:00.000Z pid=#{pid} tid=abc class=Torture::ClockJob jid=#{JID} #{level}: #{message}\n"
  end

  def start(member, at) = stamped(member, JID, at, queued: 998.5)

  # An entry as Torture::Record.stamped_start writes it: jid, pid, the
  # ledger's time, the process's own, when the job was queued.
  def stamped(member, jid, at, queued:)
    Deckhand::RedisHarness.client.call("RPUSH", "ledger:starts", "#{jid} #{member.pid} #{at} #{at} #{queued}")
  end
end
