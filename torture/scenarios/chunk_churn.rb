# frozen_string_literal: true

require_relative "sigkill_churn"

module Torture
  # 21. Scenario 1 with the work in chunks (docs/chunks.md): one job a
  # record, run by a class with `chunk: {size: 100}`, so each server thread
  # holds up to a hundred jobs in one perform_chunk and its fetches bring a
  # chunk's room at a time, while one server is SIGKILLed every few seconds
  # and started again. The members of a chunk the kill cut go back to the
  # queue and run again alone (each a suspect); nothing may be lost, nothing
  # may stay in flight or in the queue, and the jobs must have run in chunks
  # (`in_chunks`: runs in chunks of more than one; `chunk_p50`, `chunk_max`:
  # members a call, the suspects' chunks of one included, from the books).
  class ChunkChurn < SigkillChurn
    NUMBER = 21
    NAME = "chunk-churn"

    private

    def push_work(client, durations_ms, queue: "default")
      jids = client.push_bulk("class" => "Torture::ChunkWorkJob", "args" => durations_ms.zip, "queue" => queue)
      @ledger.enqueued(jids)
      jids
    end

    def figures(books, kills, jobs, leftover, redis)
      left = redis.call("LLEN", "queue:default")
      sizes = @ledger.chunk_sizes
      check(left.zero?, "#{left} jobs left in the queue")
      check(sizes.max.to_i > 1, "no chunk held more than one job")
      super.merge("left_in_queue" => left, "chunks" => sizes.size, "in_chunks" => sizes.select { |n| n > 1 }.sum,
        "chunk_p50" => percentile(sizes, 50), "chunk_max" => sizes.max)
    end
  end
end
