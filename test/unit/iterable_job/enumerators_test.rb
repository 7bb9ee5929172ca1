# frozen_string_literal: true

require_relative "../../support/iterable/iterable_helper"
require "csv"
require "tmpdir"

# The array and CSV helpers yield [item, cursor] and resume from a cursor,
# with Sidekiq's cursors (offsets).
class IterableEnumeratorsTest < Minitest::Test
  include Deckhand::IterableJob::Enumerators

  def test_array_items_with_their_index_from_the_cursor_on
    assert_equal [["a", 0], ["b", 1], ["c", 2]], array_enumerator(%w[a b c], cursor: nil).to_a
    enum = array_enumerator(%w[a b c], cursor: 1)
    assert_equal [["b", 1], ["c", 2]], enum.to_a
    assert_equal 2, enum.size
    assert_equal [], array_enumerator(%w[a], cursor: 5).to_a
  end

  def test_array_refuses_what_is_not_an_array_and_a_bad_cursor
    assert_match(/takes an Array, got Hash/, assert_raises(ArgumentError) { array_enumerator({}, cursor: nil) }.message)
    assert_match(/the cursor is an offset/, assert_raises(ArgumentError) { array_enumerator([], cursor: "x") }.message)
  end

  def test_csv_rows_and_batches_from_the_cursor_on
    Dir.mktmpdir do |dir|
      path = File.join(dir, "people.csv")
      File.write(path, "name,n\n" + (0...7).map { |i| "p#{i},#{i}\n" }.join)
      rows = CSV.open(path, headers: true) { |csv| csv_enumerator(csv, cursor: 4).map { |row, index| [row["name"], index] } }
      assert_equal [["p4", 4], ["p5", 5], ["p6", 6]], rows
      batches = CSV.open(path, headers: true) do |csv|
        csv_batches_enumerator(csv, cursor: 1, batch_size: 3).map { |batch, index| [batch.map { |r| r["n"] }, index] }
      end
      assert_equal [[%w[3 4 5], 1], [%w[6], 2]], batches
    end
  end

  def test_csv_refuses_what_is_not_a_csv
    assert_match(/take a CSV/, assert_raises(ArgumentError) { csv_enumerator("a,b", cursor: nil) }.message)
  end
end
