# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# The Busy page shows a running chunk (docs/chunks.md) as one row: its
# first member, how many members it holds, and their jids.
class WebBusyChunksTest < Minitest::Test
  include Deckhand::WebHelpers

  class HeldChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 30, wait: 0.3}
    GATE = Queue.new
    def perform_chunk(_chunk) = GATE.pop
  end

  def teardown
    HeldChunkJob::GATE.clear
    super
  end

  def test_a_running_chunk_shows_its_size_and_its_members
    jids = HeldChunkJob.perform_bulk((1..25).zip)
    with_server(new_config(concurrency: 1, heartbeat_interval: 0.2)) do
      page = wait_for(message: "the chunk on the Busy page") { (body = get("/busy").body).include?("chunk of 25 jobs") && body }
      assert_includes page, "<summary>chunk of 25 jobs</summary>#{jids.first(20).join(" ")} and 5 more</details>"
      refute_includes page, %(<button name="cancel" value="#{jids.first}"), "a running chunk cannot be cancelled"
      running = Deckhand::API.new.running
      assert_equal [[25, jids.first(20), jids.first]], running.map { |r| [r.chunk_size, r.chunk_jids, r.job.jid] }
      HeldChunkJob::GATE << :go
    end
  end

  def test_a_job_run_alone_shows_no_chunk
    running = Deckhand::Store::Records::ProcessRecord::Work.new("t1", "default", "{}", nil, nil)
    record = Deckhand::API::RunningJob.new("h:1:a", running)
    assert_nil record.chunk_size
    assert_empty record.chunk_jids
  end
end
