# frozen_string_literal: true

require "test_helper"
require "deckhand/cli/top/fitting"
require "deckhand/cli/top/table"

# Text cut to a width between words, phrases kept whole, and columns that
# give way in the order they say.
class TopFittingTest < Minitest::Test
  Fitting = Deckhand::CLI::Top::Fitting
  Table = Deckhand::CLI::Top::Table

  def test_a_cut_falls_between_words_and_is_marked
    assert_equal "no process", Fitting.fit("no process", 10)
    assert_equal "timed out~", Fitting.fit("timed out after 30 seconds", 14), "never 'timed out af'"
    assert_equal "Net::ReadTimeout:~", Fitting.fit("Net::ReadTimeout: timed out", 20)
    assert_equal "Mailers::Welc~", Fitting.fit("Mailers::WelcomeJob", 14), "one long word is cut, marked"
    assert_equal "a [2Jb", Fitting.fit("a\e[2Jb", 10), "job data cannot move the cursor"
  end

  def test_wide_characters_take_two_columns_and_marks_none
    assert_equal 10, Fitting.columns("東京の仕事")
    assert_equal 2, Fitting.columns("😀")
    assert_equal 1, Fitting.columns("e\u0301"), "e and a combining accent: one column"
    assert_equal "東京~", Fitting.fit("東京の仕事", 6)
    assert_equal "東京の~ ", Fitting.pad("東京の仕事 abc", 8), "never a half of a wide character past the edge"
    assert_equal ["東京", "の仕", "事"], Fitting.wrap("東京の仕事", 4)
    assert_equal 12, Fitting.columns(Fitting.pad("日本", 12, :right))
  end

  def test_phrases_stay_whole_or_are_counted
    assert_equal "paused, no process", Fitting.phrases(["paused", "no process"], 18)
    assert_equal "paused +1", Fitting.phrases(["paused", "no process"], 17)
    assert_equal "paused +1", Fitting.phrases(["paused", "no process"], 9)
  end

  def test_wrap_and_numbers
    assert_equal ["Redis at", "redis://x", "refused"], Fitting.wrap("Redis at redis://x refused", 9)
    assert_equal "1,234,567", Fitting.count(1_234_567)
    assert_equal ["4.2s", "3m12s", "5h3m", "2d4h"], [4.2, 192, 18_180, 187_200].map { |s| Fitting.duration(s) }
  end

  def test_columns_give_way_highest_drop_first_and_flex_takes_the_rest
    table = Table.new([
      {title: "NAME", min: 10, flex: 1}, {title: "SIZE", min: 6, align: :right},
      {title: "NOTE", min: 20, flex: 1, drop: 1}, {title: "JID", min: 24, drop: 2}
    ])
    assert_equal [10, 6, 20, 24], table.widths(3 + 60 + 6)
    assert_equal [15, 6, 26, 24], table.widths(80), "the room left to the flexible columns"
    assert_equal [19, 6, 29, nil], table.widths(61), "the jid goes first"
    assert_equal [30, 6, nil, nil], table.widths(41), "then the note"
    assert_equal ">* mailers                  42  paused, no process", table.line(["mailers", "42", ["paused", "no process"], "x" * 24], 61, ">*")
    assert_equal "   #{"NAME".ljust(30)}    SIZE", table.header(41), "SIZE aligned right"
    assert_operator table.line(["a" * 100, "1", "b" * 100, "c"], 80).size, :<=, 80
  end
end
