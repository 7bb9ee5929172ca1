# frozen_string_literal: true

require_relative "e2e_helper"
require "shellwords"
require "tmpdir"
require "deckhand/api"

# The real `deckhand top` in tmux at 80x24, driven as a person would:
# keys sent with `tmux send-keys`, the screen read with `tmux capture-pane`.
# Tabs switch, a filter narrows, a retry moves the job in Redis, a resize
# redraws at the new width, and q or Ctrl-C leave the terminal as it was.
class TopTmuxTest < Minitest::Test
  include Deckhand::E2EHelpers

  def setup
    super
    flunk "tmux is missing: bin/setup installs it (Debian package tmux)" unless system("tmux -V", out: File::NULL, err: File::NULL)
    @socket = "deckhand-top-#{::Process.pid}-#{name.hash.abs}"
    @dir = Dir.mktmpdir("deckhand-top-tmux")
  end

  def teardown
    tmux("kill-server")
    FileUtils.rm_rf(@dir)
    super
  end

  def tmux(*args) = system("tmux", "-L", @socket, *args, out: File::NULL, err: File::NULL)

  # Runs top in a detached 80x24 session; its stderr to a file (it must stay
  # empty: warnings are errors), its exit status on the pane once it ends,
  # then the terminal's line discipline (canonical mode, echo) as top left it.
  def start_top
    top = [RbConfig.ruby, "-w", "-I", Deckhand::CliProcess::LIB, Deckhand::CliProcess::EXE, "top", "--locale", "en"].shelljoin # in English whatever LANG says
    script = "env -u NO_COLOR REDIS_URL=#{Deckhand::RedisHarness.url.shellescape} #{top} 2>#{File.join(@dir, "stderr").shellescape}; " \
      "echo \"top exited $?\"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | sed 's/^/tty /'; sleep 60"
    assert tmux("-f", File::NULL, "new-session", "-d", "-x", "80", "-y", "24", "-s", "top", "sh", "-c", script), "tmux started"
  end

  def keys(*keys) = assert(tmux("send-keys", "-t", "top", *keys))

  def pane = IO.popen(["tmux", "-L", @socket, "capture-pane", "-p", "-t", "top"], &:read).split("\n")

  def shows(message, &block)
    wait_for(message: message, timeout: 15) do
      lines = pane
      lines if block.call(lines)
    end
  rescue Minitest::Assertion
    flunk "#{message}; the screen was:\n#{pane.join("\n")}"
  end

  def seed
    Deckhand::Client.new.push("class" => "MailJob", "args" => [1], "queue" => "mailers")
    @jids = %w[MailJob InvoiceJob].each_with_index.map do |klass, i|
      jid = SecureRandom.hex(12)
      job = {"class" => klass, "args" => [i], "queue" => "mailers", "jid" => jid, "retry_count" => 1,
             "error_class" => "Net::ReadTimeout", "error_message" => "timed out after 30 seconds", "failed_at" => Time.now.to_f}
      Deckhand::API.new.retries.add(JSON.generate(job), Time.now.to_f + 600 + i)
      jid
    end
  end

  def test_tabs_filter_retry_resize_and_quit_at_80_by_24
    seed
    start_top
    shows("the overview with the queue") { |lines| lines[1]&.include?("[1 Overview]") && lines.any? { |l| l.match?(/\Amailers\s+1\s/) } }
    keys("3")
    queues = shows("the queues tab") { |lines| lines[1].include?("[3 Queues]") && lines.any? { |l| l.include?("mailers") } }
    assert_match(/\A>  mailers\s+1\s+\S+\s+no process\z/, queues.find { |l| l.include?("mailers") }, "the state in whole words at 80 columns")
    keys("Tab")
    shows("tab moves to the retries") { |lines| lines[1].include?("[4 Retries]") && lines.count { |l| l.include?("Net::ReadTimeout") } == 2 }
    keys("/", "Invoice", "Enter")
    shows("the filter keeps one job") { |lines| lines.any? { |l| l.include?("InvoiceJob") } && lines.none? { |l| l.include?("MailJob") } }
    keys("Escape")
    shows("Esc lets go of the filter") { |lines| lines.any? { |l| l.start_with?(">  ") && l.include?("MailJob") } }
    keys("r")
    shows("the retry done") { |lines| lines.last == "retried 1" }
    assert_equal [@jids[0]], jobs_in("mailers").map { |job| job["jid"] }.grep(@jids[0]), "the job is in its queue"
    assert_equal [@jids[1]], Deckhand::API.new.retries.each_entry.map(&:jid), "the other stays"
    assert tmux("resize-window", "-t", "top", "-x", "140", "-y", "30")
    shows("the screen redrawn at the new width") { |lines| lines.any? { |l| l.include?("Net::ReadTimeout: timed out after 30 seconds") } }
    keys("q")
    after = shows("top to quit") { |lines| lines.include?("top exited 0") }
    assert(after.none? { |l| l.include?("Deckhand top") }, "the alternate screen is gone: the shell's screen is back")
    assert_equal ["tty icanon", "tty echo"], shows("the tty's modes") { |lines| lines.grep(/\Atty /).size == 2 }.grep(/\Atty /),
      "raw mode undone: lines and echo as before"
    assert_equal "", File.read(File.join(@dir, "stderr"))
  end

  def test_ctrl_c_quits_cleanly
    start_top
    shows("the first frame") { |lines| lines[1]&.include?("[1 Overview]") }
    keys("C-c")
    shows("top to quit on Ctrl-C") { |lines| lines.include?("top exited 0") }
    assert_equal ["tty icanon", "tty echo"], shows("the tty's modes") { |lines| lines.grep(/\Atty /).size == 2 }.grep(/\Atty /)
    assert_equal "", File.read(File.join(@dir, "stderr"))
  end
end
