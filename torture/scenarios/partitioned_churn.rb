# frozen_string_literal: true

require_relative "sigkill_churn"

module Torture
  # 13. Scenario 1 on a partitioned queue: the jobs spread over six lists
  # (`partitions: {"default" => 6}` in the servers' config file and the
  # pusher's), three servers work every partition while one of them is
  # SIGKILLed every few seconds and started again. Nothing may be lost,
  # nothing may stay in flight or in any partition at the end.
  class PartitionedChurn < SigkillChurn
    NUMBER = 13
    NAME = "partitioned-churn"
    PARTITIONS = {"default" => 6}.freeze

    private

    def new_fleet(redis_url, **options)
      yaml = "partitions:\n#{PARTITIONS.map { |queue, count| "  #{queue}: #{count}\n" }.join}"
      super(redis_url, **options, settings: timing.merge(yaml: yaml))
    end

    def client(url) = Deckhand::Client.new(config: Deckhand::Config.new(redis: {url: url}, partitions: PARTITIONS))

    def figures(books, kills, jobs, leftover, redis)
      lists = Deckhand::Config::Partitions.new(PARTITIONS).names("default")
      left = lists.sum { |list| redis.call("LLEN", "queue:#{list}") }
      check(left.zero?, "#{left} jobs left in the partitions")
      super.merge("partitions" => lists.size, "left_in_partitions" => left)
    end
  end
end
