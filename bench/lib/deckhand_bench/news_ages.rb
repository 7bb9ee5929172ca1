# frozen_string_literal: true

module DeckhandBench
  # How long a Deckhand server's acknowledgements waited: for each round
  # trip that carried news of settled jobs, the age of its oldest news when
  # the round trip took it (Fetch::Ledger#take), in a histogram of 0.5 ms
  # buckets. A SIGKILL re-runs the jobs whose news had not left: the
  # longer news waits, the more. Bench code only: the server is measured by
  # wrapping its ledger in the server process (deckhand_app.rb installs it),
  # nothing in Deckhand keeps these figures.
  #
  #   DeckhandBench::NewsAges.install   # in a Deckhand server process
  #   DeckhandBench::NewsAges.summary   # => {"news_trips" => 210, "news_age_p50_ms" => 4.5, ...}
  module NewsAges
    BUCKET = 0.0005 # seconds
    BUCKETS = 200 # up to 100 ms; older news is counted in the last bucket

    # Records the age of the oldest news each time a round trip takes it.
    module Take
      def take
        since = @since
        NewsAges.record(Deckhand::Monotonic.now - since) if since
        super
      end
    end

    @lock = Mutex.new
    @counts = Array.new(BUCKETS + 1, 0)
    @max = 0.0

    class << self
      def install
        require_relative "../../../lib/deckhand/server"
        Deckhand::Server::Fetch::Ledger.prepend(Take)
      end

      def record(age)
        @lock.synchronize do
          @counts[[(age / BUCKET).floor, BUCKETS].min] += 1
          @max = age if age > @max
        end
      end

      # Counts from zero again (the probe's measuring window opens).
      def reset
        @lock.synchronize do
          @counts.fill(0)
          @max = 0.0
        end
      end

      # Round trips that carried news, and the age of their oldest news in
      # ms: median, 99th percentile (each the upper edge of its bucket) and
      # the largest. Empty when nothing was recorded (a Sidekiq server).
      def summary
        @lock.synchronize do
          total = @counts.sum
          return {} if total.zero?
          {"news_trips" => total, "news_age_p50_ms" => percentile(total, 0.5), "news_age_p99_ms" => percentile(total, 0.99),
           "news_age_max_ms" => (@max * 1000).round(2)}
        end
      end

      private

      def percentile(total, share)
        seen = 0
        @counts.each_with_index do |count, i|
          seen += count
          return ((i + 1) * BUCKET * 1000).round(2) if seen >= share * total
        end
      end
    end
  end
end
