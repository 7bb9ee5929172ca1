# frozen_string_literal: true

require "test_helper"
require "deckhand/server"

# What a process believes is paused, and the classes whose held jobs it
# still has to move back once it saw them resumed.
class ClassPauseStateTest < Minitest::Test
  def setup = nil # no Redis needed

  def pause = @pause ||= Deckhand::Server::Run::ClassPause.new

  def released
    names = []
    pause.releasing { |name| names << name }
    names
  end

  def test_a_resumed_class_is_released_once
    refute pause.paused?("ReportJob")
    pause.update(%w[ReportJob SyncJob])
    assert pause.paused?("ReportJob")
    assert_empty released
    pause.update(["SyncJob"])
    refute pause.paused?("ReportJob")
    assert_equal ["ReportJob"], released
    assert_empty released, "once moved back, forgotten"
  end

  def test_a_release_that_raised_is_tried_again_and_a_class_paused_again_is_not_released
    pause.update(%w[A B])
    pause.update([])
    assert_raises(Deckhand::ConnectionError) { pause.releasing { |_| raise Deckhand::ConnectionError, "down" } }
    assert_equal %w[A B], released.sort, "a failed release stays for the next beat"
    pause.update(["A"])
    pause.update([])
    pause.update(["A"])
    assert_empty released, "paused again before its release: its jobs stay held"
  end
end
