# frozen_string_literal: true

require "deckhand/batch/listing"

# The batches bench/web_render.rb adds: 10,000 batches of 1,000 jobs with 10
# failing each, and the newest, an import of 500,000 jobs with 100,000
# failing (1,000 of them dead), written in Deckhand's batch layout.
module WebRenderBatches
  BATCHES = 10_000
  BIG = "bigimport00001"
  BIG_JOBS = 500_000
  BIG_FAILING = 100_000

  module_function

  def seed(store)
    keys = Deckhand::Store::Layout::PlainBatches
    now = (Time.now.to_f * 1000).to_i
    (0...BATCHES).each_slice(1_000) do |slice|
      store.pipelined do |pipe|
        slice.each do |b|
          bid = format("b%013d", b)
          pipe.call("HSET", keys.batch(bid), "created_at", now - (b * 1000), "total", 1_000, "description", "Nightly export #{b}",
            "callback_queue", "default", "hold", 0)
          pipe.call("SADD", keys.jids(bid), *Array.new(100) { |j| format("%024x", j) })
          pipe.call("HSET", keys.failed(bid), *Array.new(10) { |j| [format("%024x", j), failure(j, now)] }.flatten)
          pipe.call("ZADD", keys::INDEX, now - (b * 1000), bid)
        end
      end
    end
    store.call("HSET", keys.batch(BIG), "created_at", now, "total", BIG_JOBS, "description", "Import 500,000 customers",
      "callback_queue", "default", "hold", 0)
    (0...BIG_JOBS).each_slice(10_000) { |slice| store.call("SADD", keys.jids(BIG), *slice.map { |j| format("%024x", j) }) }
    (0...BIG_FAILING).each_slice(5_000) do |slice|
      store.call("HSET", keys.failed(BIG), *slice.flat_map { |j| [format("%024x", j), failure(j, now)] })
    end
    store.call("SADD", keys.dead(BIG), *(0...1_000).map { |j| format("%024x", j) })
    store.call("ZADD", keys::INDEX, now + 1, BIG)
  end

  def failure(j, now)
    JSON.generate("class" => "App::ImportJob", "error_class" => "Net::ReadTimeout", "error_message" => "Net::ReadTimeout reading row #{j}",
      "failed_at" => now - j, "retry_count" => j % 5)
  end

  def pages(config)
    cursor, = Deckhand::Batch::Listing.new(config).failure_page(BIG)
    ["/batches", "/batches?page=#{BATCHES / 25}", "/batches/#{BIG}", "/batches/#{BIG}?cursor=#{cursor}", "/batches/b0000000000042"]
  end
end
