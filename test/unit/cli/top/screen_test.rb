# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/cli/top/snapshot"
require "deckhand/cli/top/screen"

# The overview at 80 columns: a queue's state in whole phrases, the name
# giving way first.
class TopScreenTest < Minitest::Test
  def test_a_queue_s_state_is_never_cut_inside_a_word_at_80_columns
    client = Deckhand::Client.new
    client.push("class" => "RecordJob", "args" => [1], "queue" => "mailers")
    client.push("class" => "RecordJob", "args" => [1], "queue" => "a_queue_whose_name_is_longer_than_the_room_it_gets")
    api = Deckhand::API.new
    api.queue("mailers").pause
    lines = Deckhand::CLI::Top::Screen.new(width: 80, height: 24).lines(Deckhand::CLI::Top::Snapshot.read(api), location: "redis://x", live: false)
    assert_match(/\Amailers\s+1\s+\d+\.\ds  paused, no process\z/, lines.grep(/\Amailers/).first)
    assert_match(/\Aa_queue_whose_name\S*~\s+1\s+\d+\.\ds  no process\z/, lines.grep(/\Aa_queue/).first)
    lines.each { |line| assert_operator line.size, :<=, 80 }
  end
end
