# frozen_string_literal: true

require "test_helper"
require_relative "../../../support/top_fleet"

# Each tab of `deckhand top` drawn at 80x24 and 160x50 from a fleet seeded
# in real Redis: every line within the width, the screen exactly its
# height, the rows a tab is for, and no word cut short.
class TopFrameTest < Minitest::Test
  include Deckhand::TopFleet

  SIZES = [[80, 24], [160, 50]].freeze

  def setup
    super
    seed_fleet
    @view = top_view
  end

  def tab(number)
    press(@view, number.to_s)
    @view.refresh
    SIZES.to_h { |width, height| [width, screen(@view, width, height)] }
  end

  def assert_fits(screens)
    SIZES.each do |width, height|
      lines = screens.fetch(width)
      assert_equal height, lines.size, "#{width}x#{height}: one line per row of the terminal"
      lines.each { |line| assert_operator line.size, :<=, width, "#{width} wide: #{line.inspect}" }
      assert_match(/\ADeckhand top  redis:\/\/test  \d\d:\d\d:\d\d UTC/, lines[0])
    end
  end

  def test_the_overview_keeps_a_queue_s_state_in_whole_words_at_80_columns
    screens = tab(1)
    assert_fits(screens)
    assert_equal " [1 Overview] 2 Busy 3 Queues 4 Retries 5 Dead 6 Scheduled 7 Periodic 8 Limits", screens[80][1]
    long = screens[80].find { |line| line.start_with?("reports_for") }
    assert_match(/\Areports_for\S*~\s+1\s+\d+\.\ds  paused, no process\z/, long, "the name gives way, the state stays whole")
    assert(screens[80].any? { |line| line.match?(/\Amailers\s+3\s.*throttled 0\/2 slots\z/) })
    assert(screens[160].any? { |line| line.start_with?("#{Deckhand::TopFleet::LONG_QUEUE} ") }, "whole at 160 columns")
    assert(screens[80].any? { |line| line.match?(%r{\Ahost.example:4242\s+1/5\s+200MB}) })
  end

  def test_busy_shows_the_process_and_the_job_it_runs
    screens = tab(2)
    assert_fits(screens)
    assert_includes screens[80][2], "processes 1, threads busy 1 of 5"
    assert(screens[80].any? { |line| line.match?(%r{\A>  host.example:4242\s+1/5\s+200MB}) }, "the cursor on the first process")
    assert(screens[80].any? { |line| line.match?(/\A   RunningJob\s+default\s+\d+\.\ds/) })
    assert(screens[160].any? { |line| line.include?("r" * 24) && line.include?("7") }, "jid and arguments at 160 columns")
    refute(screens[80].any? { |line| line.include?("r" * 24) }, "the jid column is left out at 80")
  end

  def test_queues_lists_size_latency_and_state
    screens = tab(3)
    assert_fits(screens)
    assert_match(/\A>  mailers\s+3\s+\d+\.\ds\s+throttled 0\/2\z/, screens[80].find { |line| line.include?("mailers") })
    long = screens[80].find { |line| line.include?("reports_for") }
    assert_match(/  paused, no process\z/, long)
    assert_includes screens[160].join("\n"), Deckhand::TopFleet::LONG_QUEUE
  end

  def test_retries_dead_and_scheduled_list_their_entries
    retries = tab(4)
    assert_fits(retries)
    assert_includes retries[80][2], "Retries: 2 in the set"
    assert_match(/\A>  in 4m\d+s\s+MailJob\s+mailers\s+2\s+Net::ReadTimeout: timed~?/, retries[80].find { |line| line.include?("MailJob") })
    assert(retries[160].any? { |line| line.include?("Net::ReadTimeout: timed out after 30 seconds") })
    dead = tab(5)
    assert_fits(dead)
    assert_match(/\A>  1m\d+s ago\s+ExportJob\s+exports/, dead[80].find { |line| line.include?("ExportJob") })
    scheduled = tab(6)
    assert_fits(scheduled)
    assert_match(/\A>  in 9m\d+s\s+ReportJob\s+reports\s+"later"/, scheduled[80].find { |line| line.include?("ReportJob") })
  end

  def test_periodic_and_limits
    periodic = tab(7)
    assert_fits(periodic)
    assert_includes periodic[80][2], "periodic jobs 1, leader "
    assert(periodic[80].any? { |line| line.match?(/\A>  nightly\s+0 2 \* \* \*/) })
    assert(periodic[160].any? { |line| line.match?(/nightly\s+0 2 \* \* \*\s+ReportJob/) })
    press(@view, "/", *"nothing like it".chars, :enter)
    assert_equal "   (none)", screen(@view, 80, 24)[4], "under the table's header, in line with its rows"
    limits = tab(8)
    assert_fits(limits)
    assert(limits[80].any? { |line| line.match?(/\A>  mailers\s+2 at once\s+0/) })
    assert(limits[80].any? { |line| line.match?(/\A   stripe\s+concurrent\s+3\s+1\s+0/) })
  end

  def test_wide_characters_in_job_data_keep_every_line_within_the_width
    jid = failed_job(:retries, "東京::請求書Job", "mailers", Time.now.to_f + 60)
    api.retries.each_entry.find { |entry| entry.jid == jid }.then { |entry| api.retries.delete([entry]) }
    wide = {"class" => "東京::請求書Job", "args" => ["😀" * 40, "e\u0301" * 30], "queue" => "日本語のキュー", "jid" => jid,
            "error_class" => "RuntimeError", "error_message" => "失敗しました" * 10}
    api.retries.add(JSON.generate(wide), Time.now.to_f + 60)
    Deckhand::Client.new.push("class" => "MailJob", "args" => ["😀" * 50], "queue" => "日本語のキュー")
    Deckhand::Client.new.push("class" => "MailJob", "args" => ["😀" * 50], "queue" => "日本語のキュー", "at" => Time.now.to_f + 60)
    [1, 3, 4, 6].each do |number|
      press(@view, number.to_s)
      SIZES.each do |width, height|
        lines = screen(@view, width, height)
        assert(lines.any? { |line| line.include?("東京") || line.include?("日本") }, "tab #{number} shows the job")
        lines.each { |line| assert_operator Deckhand::CLI::Top::Fitting.columns(line), :<=, width, "tab #{number}, #{width} wide: #{line}" }
      end
    end
  end

  def test_a_location_in_wide_characters_keeps_the_title_within_the_width
    title = Deckhand::CLI::Top::Frame.new(@view, width: 40, height: 10, paint: Deckhand::CLI::Top::Paint.new(false), location: "redis://サーバー.example:6379").lines.first
    assert_equal 40, Deckhand::CLI::Top::Fitting.columns(title)
  end

  def test_the_tab_bar_shortens_the_other_names_when_they_do_not_fit
    press(@view, "6")
    bar = screen(@view, 50, 10)[1]
    assert_equal " 1 2 3 4 5 [6 Scheduled] 7 8", bar
    assert_equal " 1 Overview 2 Busy 3 Queues 4 Retries 5 Dead [6 Scheduled] 7 Periodic 8 Limits", screen(@view, 80, 10)[1]
  end

  def test_colour_paints_the_cursor_and_keeps_the_width
    press(@view, "4")
    frame = Deckhand::CLI::Top::Frame.new(@view, width: 80, height: 24, paint: Deckhand::CLI::Top::Paint.new(true), location: "redis://test")
    lines = frame.lines
    cursor = lines.find { |line| line.include?("MailJob") }
    assert cursor.start_with?("\e[7m"), "the cursor's row in reverse video"
    lines.each { |line| assert_operator line.gsub(/\e\[[0-9;]*m/, "").size, :<=, 80 }
  end

  def test_colour_is_off_for_no_color_and_for_output_that_is_not_a_terminal
    tty = Object.new.tap { |out| out.define_singleton_method(:tty?) { true } }
    assert Deckhand::CLI::Top::Paint.wanted?(tty, {})
    refute Deckhand::CLI::Top::Paint.wanted?(tty, {"NO_COLOR" => "1"})
    refute Deckhand::CLI::Top::Paint.wanted?(StringIO.new, {})
  end
end
