# frozen_string_literal: true

module Deckhand
  module Limiter
    # A leaky bucket: up to `size` checks pass at once, then the bucket drips
    # back at `size` per period, so a steady caller gets one check every
    # period / size.
    #
    #   GITHUB = Deckhand::Limiter.leaky("github", 60, :minute)   # bursts of 60, then one a second
    #   GITHUB.within_limit { Octokit.issues(repo) }
    class Leaky < Rate
      private

      def check(waited, last)
        Store::Scripts::LimitLeaky.new(store).call(@name, @size, period_ms: @period_ms, waited_ms: waited, last: last)
      end
    end
  end
end
