# frozen_string_literal: true

module Torture
  # 4. redis-server (append-only, fsync always) is SIGKILLed while jobs are
  # pushed and worked, then started again on its port. Every push that
  # returned a jid must run; the servers must resume by themselves.
  class RedisRestart < Scenario
    NUMBER = 4
    NAME = "redis-restart"
    AOF = %w[--appendfsync always].freeze
    DOWNTIME = 1.0

    def run
      seconds = size(20, 6)
      redis_server = start_redis("redis", persistent: true, extra: AOF)
      fleet = new_fleet(redis_server.url)
      2.times { fleet.spawn(concurrency: 10, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      acked = []
      failed = 0
      pusher = Thread.new { failed = push_for(client(redis_server.url), seconds, acked) }
      sleep seconds / 3.0
      redis_server.kill
      sleep DOWNTIME
      restarted = restart(redis_server)
      pusher.join
      @ledger.enqueued(acked)
      drained = drain(bound + 120)
      resumed = @ledger.finishes.map(&:at).select { |at| at > restarted }.min
      figures(acked, failed, drained, resumed && resumed - restarted, fleet)
    end

    private

    # Pushes one job at a time (about 500 a second) and keeps the jids of the
    # pushes that returned one; returns how many raised.
    def push_for(client, seconds, acked)
      failed = 0
      deadline = now + seconds
      while now < deadline
        begin
          acked << client.push("class" => "Torture::WorkJob", "args" => [2])
        rescue RedisClient::Error, Deckhand::ConnectionError
          failed += 1
          sleep 0.01
        end
        sleep 0.002
      end
      failed
    end

    def restart(server)
      again = Deckhand::DevRedis.new(dir: server.dir, port: server.port, persistent: true, extra: AOF).start
      @servers << again
      Time.now.to_f
    end

    def figures(acked, failed, drained, resumed_after, fleet)
      books = @ledger.analysis
      crashed = fleet.exited.size
      check(drained && books[:lost].zero?, "#{books[:lost]} acknowledged pushes lost")
      check(!resumed_after.nil?, "the servers never resumed")
      check(crashed.zero?, "#{crashed} server processes died")
      {
        "acked_pushes" => acked.size, "acked_lost" => books[:lost], "failed_pushes" => failed,
        "downtime" => secs(DOWNTIME), "servers_resumed_after" => secs(resumed_after),
        "duplicate_runs" => books[:duplicate_starts], "server_crashes" => crashed
      }
    end
  end
end
