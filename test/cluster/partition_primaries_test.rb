# frozen_string_literal: true

require "test_helper"
require "deckhand/api"
require "deckhand/cli/top/snapshot"
require "deckhand/cli/top/screen"
require_relative "../support/cluster_helpers"
require_relative "../support/web/web_helpers"

# Where a partitioned queue lives in cluster mode: `deckhand top` says on
# how many primaries and how many partitions each holds, and the queue's
# dashboard page names each partition's primary. What they show is checked
# against the primary Redis itself says serves each list's slot.
class ClusterPartitionPrimariesTest < Minitest::Test
  include Deckhand::WebHelpers
  include Deckhand::ClusterHelpers

  LISTS = Deckhand::Store::Layout::PartitionNames.list("default", 6)

  def setup
    super
    Deckhand.config = new_config(partitions: {"default" => 6})
    RecordJob.perform_bulk(Array.new(60) { |i| [i] })
    Deckhand::Client.push("class" => "RecordJob", "queue" => "mail", "args" => [1])
  end

  def slots = Deckhand::Store::Tags::QueuePlacement::Slots.read(Deckhand.config.store)

  # list => "host:port", from the cluster's slot map, not from the placement report.
  def primaries = LISTS.to_h { |list| [list, slots.primary_of(keys.queue(list))] }

  def screen(height)
    snapshot = Deckhand::CLI::Top::Snapshot.read(Deckhand::API.new)
    Deckhand::CLI::Top::Screen.new(width: 120, height: height).lines(snapshot, location: "cluster", live: false)
  end

  def test_top_shows_the_primaries_of_a_partitioned_queue_and_how_many_partitions_each_holds
    spread = primaries.values.tally
    assert_equal [2, 2, 2], spread.values, "six partitions, two on each of three primaries"
    lines = screen(30)
    row = lines.index { |line| line.start_with?("default ") }
    assert_match(/\Adefault\s+60\s+\S+  on 3 primaries, no process\z/, lines[row])
    assert_equal "  partitions  " + spread.sort.map { |address, count| "#{address} x#{count}" }.join("  "), lines[row + 1]
    mail = lines.index { |line| line.start_with?("mail ") }
    assert_match(/  on #{Regexp.escape(slots.primary_of(keys.queue("mail")))}, no process\z/, lines[mail])
    refute_match(/\A  partitions/, lines[mail + 1].to_s, "a queue of one list has no partitions line")
  end

  def test_top_cuts_a_partitioned_queue_s_second_line_before_its_row_when_short_of_room
    assert_equal ["default", "  partitions", "mail"], queue_lines(11).map { |line| line[/\A\s*\w+/] }
    assert_equal ["default", "  ... 1 more"], queue_lines(10).map { |line| line[/\A\s*[\w.]+( \d more)?/] }
  end

  def test_the_queue_page_names_each_partition_s_primary
    page = get("/queues/default").body
    assert_includes page, "<th>Primary</th>"
    rows = page.scan(%r{<tr><td class="num">(\d+)</td><td><code>([^<]+)</code></td><td>([^<]+)</td>})
    assert_equal LISTS.each_with_index.map { |list, i| [i.to_s, list, primaries.fetch(list)] }, rows
    refute_includes get("/queues/mail").body, "<th>Primary</th>", "a queue of one list has no partitions table"
  end

  private

  # The lines between the QUEUE header and the blank line after the queues.
  def queue_lines(height)
    lines = screen(height)
    start = lines.index { |line| line.start_with?("QUEUE") } + 1
    lines.drop(start).take_while { |line| !line.empty? }
  end
end
