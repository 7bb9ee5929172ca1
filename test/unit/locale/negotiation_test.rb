# frozen_string_literal: true

require "test_helper"
require "deckhand/locale"

# Accept-Language to one of the languages there are texts for.
class LocaleNegotiationTest < Minitest::Test
  NAMES = %w[ar de en es fr he ja pt ru zh-CN].freeze

  def best(header) = Deckhand::Locale::Negotiation.new(NAMES).best(header)

  def test_the_highest_q_value_wins_whatever_its_place
    assert_equal "de", best("fr;q=0.5, de;q=0.9, en;q=0.1")
    assert_equal "fr", best("fr-CA,fr;q=0.9,en;q=0.5")
  end

  def test_equal_q_values_keep_the_headers_order
    assert_equal "ja", best("ja, ru")
    assert_equal "ru", best("ru;q=0.8, ja;q=0.8")
  end

  def test_a_region_gets_its_language
    assert_equal "pt", best("pt-BR")
    assert_equal "es", best("es-419,en;q=0.3")
    assert_equal "he", best("he-IL")
  end

  def test_simplified_chinese_is_matched_but_traditional_is_not
    assert_equal "zh-CN", best("zh-CN")
    assert_equal "zh-CN", best("zh")
    assert_equal "zh-CN", best("zh-Hans-SG")
    assert_equal "en", best("zh-TW,en;q=0.5")
    assert_nil best("zh-Hant")
    assert_nil best("zh-HK")
  end

  def test_q_zero_refuses_a_language_and_a_star_names_none
    assert_equal "en", best("fr;q=0, en;q=0.2")
    assert_nil best("*")
    assert_nil best("fr;q=0")
  end

  def test_unknown_and_malformed_entries_are_passed_over
    assert_nil best("da, sv;q=0.9")
    assert_equal "de", best("<script>, x-klingon-!!, fr;q=2, de;q=0.4")
    assert_equal "es", best("es;q=abc, es;q=0.3")
    assert_nil best("")
    assert_nil best(nil)
  end

  def test_case_and_spaces_do_not_matter
    assert_equal "zh-CN", best(" ZH-cn ; q=0.7 ")
  end

  def test_a_huge_header_is_read_only_so_far
    assert_nil best("#{"xx," * 10_000}fr")
    assert_equal "fr", best("fr,#{"xx," * 10_000}")
  end

  def test_locale_negotiate_falls_back_to_english
    assert_equal "en", Deckhand::Locale.negotiate("da")
    assert_equal "ar", Deckhand::Locale.negotiate("ar-EG,ar;q=0.9")
    assert_equal "en", Deckhand::Locale.negotiate(nil)
  end
end
