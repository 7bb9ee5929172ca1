# frozen_string_literal: true

require "test_helper"

class JRubyAdviceTest < Minitest::Test
  Advice = Deckhand::Server::JRubyAdvice

  def test_jruby_without_invokedynamic_is_told_how_to_turn_it_on
    message = Advice.message(engine: "jruby", indy: false)
    assert_includes message, "JRUBY_OPTS=-Xcompile.invokedynamic=true"
    assert_includes message, "docs/jruby.md"
  end

  def test_nothing_to_say_with_invokedynamic_on_nor_on_other_rubies
    assert_nil Advice.message(engine: "jruby", indy: true)
    assert_nil Advice.message(engine: "ruby", indy: nil)
    assert_nil Advice.message(engine: "jruby", indy: nil) # a JRuby whose option could not be read
  end

  def test_reads_the_setting_of_the_running_jruby
    if RUBY_ENGINE == "jruby"
      assert_includes [true, false], Advice.invokedynamic?
    else
      assert_nil Advice.invokedynamic?
      assert_nil Advice.message
    end
  end
end
