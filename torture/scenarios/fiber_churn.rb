# frozen_string_literal: true

require_relative "sigkill_churn"

module Torture
  # 14. Scenario 1 with the work on a fiber capsule: each of three servers
  # runs a capsule of 100 fibers (`fibers: true` in the servers' config file)
  # for the queue "io", whose jobs sleep 25-500 ms as I/O-bound jobs wait,
  # while one server is SIGKILLed every few seconds and started again.
  # Nothing may be lost and nothing may stay in flight. Each kill sends a
  # hundred jobs or more back as suspects: kills come no more often than the
  # fleet can run them, or jobs caught by three kills in a row would rightly
  # be quarantined as poison pills.
  class FiberChurn < SigkillChurn
    NUMBER = 15
    NAME = "fiber-churn"
    FIBERS = 100
    CAPSULE = "capsules:\n  io: {concurrency: #{FIBERS}, queues: [io], fibers: true}\n"

    private

    def job_count = size(30_000, 8000)

    def kill_every = size(5.0, 2.5)

    def new_fleet(redis_url, **options) = super(redis_url, **options, settings: timing.merge(yaml: CAPSULE))

    # Longer jobs than scenario 1's: 600 fibers would finish its pile
    # before the first kill.
    def push_work(client, durations_ms, queue: "io") = super(client, durations_ms.map { |ms| ms * 25 }, queue: "io")

    def figures(books, kills, jobs, leftover, redis)
      left = redis.call("LLEN", "queue:io")
      check(left.zero?, "#{left} jobs left in the queue")
      super.merge("fibers_per_process" => FIBERS, "left_in_queue" => left)
    end
  end
end
