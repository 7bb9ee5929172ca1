# frozen_string_literal: true

require "test_helper"
require_relative "../../../support/top_fleet"

# `deckhand top`'s keys and actions, on real Redis: each action does what
# the dashboard's button does, through the same API calls, and the
# destructive ones ask first.
class TopViewStateTest < Minitest::Test
  include Deckhand::TopFleet

  # Holds its thread until it is cancelled.
  class WaitingJob
    include Deckhand::Job

    def perform = (sleep 0.01 until cancelled?)
  end

  def setup
    super
    seed_fleet
    @view = top_view
    @view.refresh
  end

  def retry_jids = api.retries.each_entry.map(&:jid)

  def test_r_retries_the_job_under_the_cursor_into_its_queue
    press(@view, "4")
    assert_equal "MailJob", @view.rows[@view.cursor].item.klass
    press(@view, "r")
    assert_equal "retried 1", @view.message
    assert_includes jobs_in("mailers").map { |job| job["jid"] }, @retry_jid
    refute_includes retry_jids, @retry_jid
    assert_equal 1, api.retries.size, "the other retry stays"
    assert_equal ["InvoiceJob"], @view.rows.map { |row| row.item.klass }, "the tab read again"
  end

  def test_delete_asks_first_and_removes_the_job_only_on_y
    press(@view, "4", "d")
    assert_equal :confirm, @view.mode
    assert_equal "Delete 1 job(s) for good?  y/n", screen(@view, 80, 24).last
    press(@view, "n")
    assert_equal "nothing done", @view.message
    assert_equal 2, api.retries.size
    press(@view, "d", "y")
    assert_equal "deleted 1", @view.message
    refute_includes retry_jids, @retry_jid
    refute_includes jobs_in("mailers").map { |job| job["jid"] }, @retry_jid
    assert_equal 1, api.retries.size
  end

  def test_space_selects_rows_and_an_action_takes_them_all
    press(@view, "4", " ", " ")
    assert_equal 2, @view.selected.size
    assert_match(/  2 selected\z/, screen(@view, 80, 24)[2])
    assert(screen(@view, 80, 24).any? { |line| line.start_with?(" * ") && line.include?("MailJob") }, "a selected row is starred")
    press(@view, "K")
    assert_equal "Move 2 job(s) to the dead set?  y/n", screen(@view, 80, 24).last
    press(@view, "y")
    assert_equal "killed 2", @view.message
    assert_equal 0, api.retries.size
    assert_equal 3, api.dead.size
    assert_empty @view.selected
  end

  def test_dead_jobs_retry_and_offer_no_kill
    press(@view, "5", "K")
    assert_equal :browse, @view.mode, "K does nothing in the dead set"
    press(@view, "r")
    assert_includes jobs_in("exports").map { |job| job["jid"] }, @dead_jid
    assert_equal 0, api.dead.size
  end

  def test_cancel_takes_a_scheduled_job_out_and_records_it
    press(@view, "6", "c", "y")
    assert_equal "cancelled 1, 0 gone already", @view.message
    assert_equal 0, api.scheduled.size
  end

  def test_the_filter_narrows_a_set_in_redis_and_esc_clears_it
    press(@view, "4", "/", *"Invoice".chars)
    assert_equal :filter, @view.mode
    assert_equal "Filter: Invoice_  (Enter applies, Esc cancels)", screen(@view, 80, 24).last
    press(@view, :enter)
    assert_equal ["InvoiceJob"], @view.rows.map { |row| row.item.klass }
    assert_includes screen(@view, 80, 24)[2], "filter \"Invoice\""
    press(@view, "/", :backspace, :backspace, :backspace, :backspace, :backspace, :backspace, :backspace, *"invoice".chars, :enter)
    assert_empty @view.rows, "the sets' filter is Redis' search: case counts"
    press(@view, :escape)
    assert_equal 2, @view.rows.size
    press(@view, "/", *"Invoice".chars, :enter)
    assert_equal ["InvoiceJob"], @view.rows.map { |row| row.item.klass }
    press(@view, :escape)
    assert_equal "MailJob", @view.rows[@view.cursor].item.klass, "back at the top, not on the row the filter found"
  end

  def test_the_filter_of_other_tabs_ignores_case
    press(@view, "3", "/", *"REPORTS".chars, :enter)
    assert_equal [Deckhand::TopFleet::LONG_QUEUE], @view.rows.map(&:key)
    press(@view, "2")
    assert_equal "", @view.filter, "each tab keeps its own filter"
    press(@view, "3")
    assert_equal "REPORTS", @view.filter
  end

  def test_p_pauses_and_resumes_a_queue_and_a_periodic_job
    press(@view, "3")
    assert_equal "mailers", @view.rows[@view.cursor].key
    press(@view, "p")
    assert api.queue("mailers").paused?
    assert_equal "paused 1, resumed 0", @view.message
    press(@view, "j", "p")
    refute api.queue(Deckhand::TopFleet::LONG_QUEUE).paused?
    press(@view, "7", "p")
    assert api.periodic.find("nightly").paused?
    press(@view, "p")
    refute api.periodic.find("nightly").paused?
  end

  def test_quiet_and_stop_reach_a_real_server_and_cancel_stops_its_job
    jid = WaitingJob.perform_async
    with_server(new_config(heartbeat_interval: 0.1)) do |launcher|
      wait_for(message: "the job running") { api.running.any? { |work| work.job.jid == jid } }
      press(@view, "2")
      at = @view.rows.index { |row| row.kind == :process && row.key == launcher.identity }
      press(@view, *(["j"] * at), "Q")
      assert_equal "asked 1 to quiet", @view.message
      wait_for(message: "the quiet signal") { @signals_received&.include?("TSTP") }
      press(@view, "c")
      assert_match(/nothing here to cancel/, @view.message, "cancel wants a job's row")
      press(@view, "S")
      assert_equal :confirm, @view.mode
      press(@view, "y")
      wait_for(message: "the stop signal") { @signals_received&.include?("TERM") }
      press(@view, "G", "c", "y")
      assert_equal "cancelled 1, 0 gone already", @view.message
      wait_for(message: "the job cancelled") { api.cancellation(jid) }
    end
    assert_equal "running", api.cancellation(jid).where
  end

  def test_the_cursor_stays_on_its_row_when_the_rows_move
    press(@view, "3", "j")
    assert_equal Deckhand::TopFleet::LONG_QUEUE, @view.rows[@view.cursor].key
    5.times { Deckhand::Client.new.push("class" => "ReportJob", "args" => [1], "queue" => Deckhand::TopFleet::LONG_QUEUE) }
    @view.refresh
    assert_equal Deckhand::TopFleet::LONG_QUEUE, @view.rows.first.key, "now the largest"
    assert_equal 0, @view.cursor
    press(@view, "p")
    refute api.queue(Deckhand::TopFleet::LONG_QUEUE).paused?, "the queue under the cursor resumed"
    refute api.queue("mailers").paused?
  end

  def test_tabs_move_with_tab_shift_tab_numbers_and_arrows
    assert_equal "Overview", @view.tab.name
    press(@view, :tab)
    assert_equal "Busy", @view.tab.name
    press(@view, :shift_tab, :shift_tab)
    assert_equal "Limits", @view.tab.name
    press(@view, "6")
    assert_equal "Scheduled", @view.tab.name
    press(@view, :left)
    assert_equal "Dead", @view.tab.name
  end

  def test_help_shows_the_tab_s_actions_and_any_key_closes_it
    press(@view, "4", "?")
    help = screen(@view, 80, 24)
    assert(help.any? { |line| line.match?(/\A  K\s+kill\z/) })
    assert(help.any? { |line| line.include?("space") })
    assert_nil @view.press("x")
    assert_equal :browse, @view.mode
  end

  def test_q_and_ctrl_c_quit_but_not_while_typing_a_filter
    assert_equal :quit, @view.press("q")
    assert_equal :quit, @view.press(:ctrl_c)
    press(@view, "3", "/")
    assert_nil @view.press("q")
    assert_equal "q", @view.draft
    assert_equal :quit, @view.press(:ctrl_c), "Ctrl-C quits even while typing"
  end

  def test_a_redis_outage_shows_on_the_screen_in_whole_words
    broken = Deckhand::CLI::Top::ViewState.new(Deckhand::API.new(new_config(redis: {url: "redis://127.0.0.1:1", timeout: 0.2})), location: "redis://down")
    broken.press("3")
    broken.refresh
    lines = screen(broken, 80, 24)
    assert_match(/\ARedis unreachable: Redis at redis:\/\/127.0.0.1:1\/0 refused the connection/, lines[3])
    assert_match(/; retrying\z/, lines[4..-2].join(" ").strip)
    lines.each { |line| assert_operator line.size, :<=, 80 }
  end
end
