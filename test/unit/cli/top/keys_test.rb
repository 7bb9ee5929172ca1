# frozen_string_literal: true

require "test_helper"
require "deckhand/cli/top/keys"

# What a terminal sends in raw mode, read as keys.
class TopKeysTest < Minitest::Test
  Keys = Deckhand::CLI::Top::Keys

  def test_letters_arrows_and_control_keys
    assert_equal ["j", :up, :down, :tab, :shift_tab, :enter, " ", "/"], Keys.parse("j\e[A\e[B\t\e[Z\r /")
    assert_equal [:up, :left, :page_down, :home, :end, :backspace, :ctrl_c], Keys.parse("\eOA\e[D\e[6~\e[H\e[4~\u007f\u0003")
  end

  def test_a_lone_escape_is_esc_and_an_unknown_sequence_presses_nothing
    assert_equal [:escape], Keys.parse("\e")
    assert_equal ["q"], Keys.parse("\e[15~q"), "F5 does not press ~"
    assert_equal ["é"], Keys.parse("é".b), "bytes of one character read as one"
    assert_equal [], Keys.parse("\u0001\xff".b)
  end
end
