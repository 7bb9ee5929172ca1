# frozen_string_literal: true

# The import pattern of the brief at this machine's scale: N records in a
# Redis hash, imported by one job per record or by one job per 1,000 records,
# each way once as plain jobs and once tracked by a batch whose success
# callback records the time. Prints the wall times and what a batch costs per
# job against plain jobs.
#
#   bundle exec ruby bench/batches.rb [--records 200000] [--threads 15] [--slice 1000] [--rounds 1]
#
# The same file is the application the server child loads (`deckhand -r`).

require "json"
require "deckhand"
require "deckhand/batch"
require "connection_pool"

module BatchBench
  RECORDS = "bench:records"
  IMPORTED = "bench:imported"
  DONE = "bench:done"
  QUEUE = "bench"

  POOL = ConnectionPool.new(size: 20) { RedisClient.new(url: ENV.fetch("REDIS_URL")) }

  def self.call(*command) = POOL.with { |conn| conn.call(*command) }

  # What importing a record means here: parse it, normalise it, store it.
  def self.normalise(raw)
    row = JSON.parse(raw)
    JSON.generate({"email" => row["email"].downcase, "name" => row["name"].strip, "cents" => (row["amount"] * 100).round})
  end

  class ImportOne
    include Deckhand::Job

    deckhand_options queue: QUEUE

    def perform(id)
      BatchBench.call("HSET", IMPORTED, id, BatchBench.normalise(BatchBench.call("HGET", RECORDS, id)))
    end
  end

  class ImportSlice
    include Deckhand::Job

    deckhand_options queue: QUEUE

    def perform(first, last)
      ids = (first..last).to_a
      raws = BatchBench.call("HMGET", RECORDS, *ids)
      BatchBench.call("HSET", IMPORTED, *ids.zip(raws).flat_map { |id, raw| [id, BatchBench.normalise(raw)] })
    end
  end

  class Finished
    def on_success(status, options)
      BatchBench.call("RPUSH", DONE, JSON.generate({"at" => Time.now.to_f, "total" => status.total, "run" => options["run"]}))
    end
  end
end

if $PROGRAM_NAME == __FILE__
  require "optparse"
  require "etc"
  require "rbconfig"
  require_relative "lib/deckhand_bench/lab"
  require_relative "batches/driver"

  options = {records: 200_000, threads: 15, slice: 1_000, rounds: 1}
  OptionParser.new do |o|
    o.on("--records N", Integer) { |n| options[:records] = n }
    o.on("--threads N", Integer) { |n| options[:threads] = n }
    o.on("--slice N", Integer) { |n| options[:slice] = n }
    o.on("--rounds N", Integer) { |n| options[:rounds] = n }
  end.parse!
  $stdout.sync = true
  DeckhandBench::Lab.open(yjit: false) do |lab|
    BatchBench::Driver.new(lab, **options).run
  end
end
