# frozen_string_literal: true

require "test_helper"
require "deckhand/locale"

# One language's texts: the fallback to English, interpolation, plural
# forms, and numbers and times written its way.
class LocaleCatalogTest < Minitest::Test
  def english = Deckhand::Locale["en"]

  def test_a_key_a_language_lacks_reads_as_english
    partial = Deckhand::Locale::Catalog.new("fr", {"nav.queues" => "Files"}, english)
    assert_equal "Files", partial.t("nav.queues")
    assert_equal "Dead", partial.t("nav.dead")
    assert_equal "3 jobs", partial.t("count.jobs", count: 3)
    assert_raises(KeyError) { partial.t("no.such.key") }
  end

  def test_a_missing_variable_is_an_error_naming_the_key
    error = assert_raises(KeyError) { english.t("layout.every") }
    assert_includes error.message, "layout.every"
    assert_includes error.message, "%{n}"
  end

  def test_plural_forms_by_each_languages_rule
    ru = Deckhand::Locale["ru"]
    assert_equal ["1 задание", "3 задания", "5 заданий", "11 заданий", "21 задание", "22 задания"],
      [1, 3, 5, 11, 21, 22].map { |n| ru.t("count.jobs", count: n) }
    ar = Deckhand::Locale["ar"]
    assert_equal ["0 مهمة", "مهمة واحدة", "مهمتان", "3 مهام", "11 مهمة", "100 مهمة"],
      [0, 1, 2, 3, 11, 100].map { |n| ar.t("count.jobs", count: n) }
    assert_equal "0 tâche", Deckhand::Locale["fr"].t("count.jobs", count: 0)
    assert_equal "0 jobs", english.t("count.jobs", count: 0)
    assert_equal "7件のジョブ", Deckhand::Locale["ja"].t("count.jobs", count: 7)
    assert_equal "שתי משימות", Deckhand::Locale["he"].t("count.jobs", count: 2)
  end

  def test_numbers_have_the_languages_separators
    assert_equal "1,234,567", english.number(1_234_567)
    assert_equal "1.234.567", Deckhand::Locale["de"].number(1_234_567)
    assert_equal "1\u202F234\u202F567", Deckhand::Locale["fr"].number(1_234_567)
    assert_equal "1\u00A0234", Deckhand::Locale["ru"].number(1234)
    assert_equal "-12,345", english.number(-12_345)
    assert_equal "999", Deckhand::Locale["de"].number(999)
    assert_equal "2,5", Deckhand::Locale["pt"].decimal(2.54)
  end

  def test_durations_and_relative_times
    now = Time.utc(2030, 1, 2, 12)
    assert_equal ["12.3 s", "5 min", "1 h 2 min", "3 d 4 h"], [12.34, 300, 3725, 273_600].map { |s| english.duration(s) }
    assert_equal "1 h 2 min ago", english.ago(now - 3725, now)
    assert_equal "in 5 min", english.ago(now + 300, now)
    de = Deckhand::Locale["de"]
    assert_equal "vor 1 Std. 2 Min.", de.ago(now - 3725, now)
    assert_equal "in 4,5 s", de.ago(now + 4.5, now)
    assert_equal "5分前", Deckhand::Locale["ja"].ago(now - 300, now)
    assert_equal "منذ 1 س و2 د", Deckhand::Locale["ar"].ago(now - 3725, now)
  end

  def test_exact_times_in_the_languages_order
    time = Time.utc(2030, 1, 2, 3, 4, 5)
    assert_equal "2030-01-02 03:04:05 UTC", english.time(time)
    assert_equal "02.01.2030, 03:04:05 UTC", Deckhand::Locale["de"].time(time)
    assert_equal "02/01/2030 03:04:05 UTC", Deckhand::Locale["fr"].time(time)
    assert_equal "2030/01/02 03:04:05 UTC", Deckhand::Locale["zh-CN"].time(time.getlocal("+08:00"))
  end

  def test_an_unknown_code_gets_english_and_names_are_their_own
    assert_same english, Deckhand::Locale["xx"]
    assert_same english, Deckhand::Locale["../../etc/passwd"]
    assert_equal %w[العربية Deutsch English Español Français עברית 日本語 Português Русский 简体中文],
      Deckhand::Locale.names.map { |code| Deckhand::Locale[code].name }
    assert_equal "rtl", Deckhand::Locale["he"].dir
    assert_equal "ltr", Deckhand::Locale["ja"].dir
  end
end
