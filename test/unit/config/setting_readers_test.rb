# frozen_string_literal: true

require "test_helper"

# Each setting reads back through a reader of its own, written out (and
# documented) one by one so the API reference shows every setting.
class SettingReadersTest < Minitest::Test
  READ_OTHERWISE = %i[periodic timestamps].freeze # Config#periodic yields, Config#timestamps follows the fleet

  def test_every_setting_but_two_has_a_reader_there
    readers = Deckhand::Config::SettingReaders.public_instance_methods(false)

    assert_equal (Deckhand::Config::SETTINGS.keys - READ_OTHERWISE).sort, readers.sort
  end

  def test_each_reads_back_what_was_set
    config = Deckhand::Config.new(concurrency: 20, tag: "eu", queues: ["critical,3", "default"])

    assert_equal 20, config.concurrency
    assert_equal "eu", config.tag
    assert_equal ["critical,3", "default"], config.queues
    assert_equal 25, config.max_retries
  end
end
