# frozen_string_literal: true

require "test_helper"
require "deckhand/locale"

# Accept-Language, and a terminal's POSIX locale, to one of the languages
# there are texts for.
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

  def test_a_posix_locale_name_gets_its_language
    assert_equal "de", Deckhand::Locale.posix("de_DE.UTF-8")
    assert_equal "pt", Deckhand::Locale.posix("pt_BR")
    assert_equal "zh-CN", Deckhand::Locale.posix("zh_CN.GB18030")
    assert_equal "zh-CN", Deckhand::Locale.posix("zh_SG.UTF-8")
    assert_equal "fr", Deckhand::Locale.posix("fr_BE.ISO-8859-1@euro")
    assert_equal "ar", Deckhand::Locale.posix("ar")
    assert_equal "ru", Deckhand::Locale.posix("ru-RU"), "as --locale may be given"
  end

  def test_c_posix_other_languages_and_non_names_get_none
    ["C", "C.UTF-8", "POSIX", "zh_TW.UTF-8", "zh_HK", "da_DK.UTF-8", "", "../de", "de_DE.UTF-8 rm", nil].each do |name|
      assert_nil Deckhand::Locale.posix(name), name.inspect
    end
  end

  def test_the_environment_as_posix_says_lc_all_then_lc_messages_then_lang
    from = ->(env) { Deckhand::Locale.from_environment(env) }
    assert_equal "de", from.call("LANG" => "de_DE.UTF-8")
    assert_equal "ja", from.call("LC_MESSAGES" => "ja_JP.UTF-8", "LANG" => "de_DE.UTF-8")
    assert_equal "he", from.call("LC_ALL" => "he_IL.UTF-8", "LC_MESSAGES" => "ja_JP.UTF-8", "LANG" => "de_DE.UTF-8")
    assert_equal "ru", from.call("LC_ALL" => "", "LANG" => "ru_RU.UTF-8"), "an empty variable is not set"
    assert_equal "en", from.call("LC_ALL" => "C", "LANG" => "de_DE.UTF-8"), "C is English, and it wins"
    assert_equal "en", from.call("LANG" => "da_DK.UTF-8")
    assert_equal "en", from.call({})
  end
end
