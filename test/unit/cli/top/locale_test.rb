# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "../../../support/top_fleet"

# `deckhand top` in the user's language: every tab, the help and a
# question drawn at 80x24 in German and Arabic share no word with English
# but names and data, and in Japanese and Chinese (two columns a
# character) every line still fits the terminal's columns, its headers
# over their columns. The language
# comes from --locale, else LC_ALL, LC_MESSAGES and LANG.
class TopLocaleTest < Minitest::Test
  include Deckhand::TopFleet

  Top = Deckhand::CLI::Top
  # Names and data the fleet gave, key caps, and the title's own words.
  NOT_WORDS = %w[Deckhand top redis test UTC RSS JID CRON MailJob ReportJob InvoiceJob ExportJob RunningJob mailers reports billing exports
    default host example stripe nightly concurrent Net ReadTimeout timed out after seconds two PgUp PgDn Esc Ctrl-C tab shift-tab up down
    space later].freeze
  # Words German writes as English does.
  SAME_WORDS = {"de" => %w[Limits JOB NAME in]}.freeze

  def setup
    super
    seed_fleet
  end

  def view_in(code) = Top::ViewState.new(api, location: "redis://test", locale: Deckhand::Locale[code])

  # Each tab, then the help, then the retries tab asking whether to delete.
  def screens(code)
    view = view_in(code)
    view.refresh
    all = (1..8).map do |number|
      press(view, number.to_s)
      screen(view, 80, 24)
    end
    press(view, "?")
    all << screen(view, 80, 24)
    press(view, "x", "4", "d")
    all << screen(view, 80, 24)
  end

  # A token with a digit (a count, a time) or an underscore (a queue's name) is data, not a word.
  def words(lines) = lines.join("\n").scan(/[[:alnum:]_'-]+/).grep(/\A[[:alpha:]][[:alpha:]'-]+\z/).uniq

  def test_german_and_arabic_leave_no_english_word_on_any_tab
    english = screens("en")
    %w[de ar].each do |code|
      screens(code).each_with_index do |lines, i|
        left = (words(lines) & words(english[i])) - NOT_WORDS - SAME_WORDS.fetch(code, [])
        assert_empty left, "#{code}, screen #{i + 1}:\n#{lines.join("\n")}"
      end
    end
  end

  def test_every_language_fits_80x24_in_the_terminals_columns
    Deckhand::Locale.names.each do |code|
      screens(code).each_with_index do |lines, i|
        assert_equal 24, lines.size, "#{code}, screen #{i + 1}"
        lines.each { |line| assert_operator Top::Fitting.columns(line), :<=, 80, "#{code}, screen #{i + 1}: #{line}" }
      end
    end
  end

  def test_the_words_are_the_languages
    de = screens("de")
    assert_equal " [1 Übersicht] 2 3 4 5 6 7 8", de[0][1], "the other tabs' names leave when they do not all fit"
    view = view_in("de")
    assert_equal " [1 Übersicht] 2 Belegt 3 Warteschlangen 4 Wiederholungen 5 Tot 6 Geplant 7 Periodisch 8 Limits", screen(view, 120, 24)[1]
    assert_equal "Jobs endgültig löschen: 1?  y/n", de.last.last
    ar = screens("ar")
    assert(ar[2].any? { |line| line.match?(/\A>  mailers\s+3\s.*مقيَّد 0\/2\z/) }, "a queue's state in Arabic, in logical order")
    ja = screens("ja")
    assert_equal " [1 概要] 2 実行中 3 キュー 4 リトライ 5 デッド 6 予定 7 定期 8 制限", ja[0][1], "40 characters, 56 columns: they fit"
    assert_equal "ジョブ 1 件を完全に削除しますか?  y/n", ja.last.last
    header = ja[0].find { |line| line.start_with?("キュー") }
    row = ja[0].find { |line| line.start_with?("mailers") }
    assert_equal Top::Fitting.columns(row[/\Amailers\s+3/]), Top::Fitting.columns(header[/\A.*件数/]), "a wide header right-aligned over its numbers"
  end

  def test_locale_option_then_the_environment_choose_the_language
    assert_includes top("--once", "--locale", "de_DE.UTF-8"), "Verarbeitet"
    assert_includes top("--once", env: {"LC_ALL" => nil, "LC_MESSAGES" => "fr_FR.UTF-8", "LANG" => "de_DE.UTF-8"}), "Traitées"
    assert_includes top("--once", env: {"LC_ALL" => "C", "LANG" => "de_DE.UTF-8"}), "Processed"
    assert_includes top("--once", "--locale", "ru", env: {"LC_ALL" => "ja_JP.UTF-8"}), "Обработано"
    err = StringIO.new
    assert_equal 1, Deckhand::CLI::TopCommand.new(["--once", "--locale", "xx"], out: StringIO.new, err: err).run
    assert_equal %(deckhand top: --locale "xx" is not a language deckhand top speaks: give one of #{Deckhand::Locale.names.join(", ")}\n), err.string
  end

  private

  # `deckhand top ARGS`'s output, with the environment changed for it.
  def top(*args, env: {"LC_ALL" => nil, "LC_MESSAGES" => nil, "LANG" => nil})
    saved = env.keys.to_h { |name| [name, ENV[name]] }
    env.each { |name, value| ENV[name] = value }
    out = StringIO.new
    assert_equal 0, Deckhand::CLI::TopCommand.new(args, out: out, err: $stderr).run
    out.string
  ensure
    saved&.each { |name, value| ENV[name] = value }
  end
end
