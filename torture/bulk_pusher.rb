# frozen_string_literal: true

# The pusher of scenario 18 (cut-reply bulk push), a process of its own as an
# application's would be: one perform_bulk of TORTURE_BULK_COUNT jobs (1,000
# a round trip) through REDIS_URL (a proxy that cuts replies), with
# reliable_push when TORTURE_RELIABLE_PUSH=1. A push that raises is handled
# as a careful caller does: what the error says was pushed is kept, what it
# says was not is pushed again. Each job's one argument is an id of its own
# ("<run>-<n>"), so the ledger tells a job pushed twice from two jobs. What
# happened goes to the ledger's hash "ledger:pusher".
#
#   REDIS_URL=redis://127.0.0.1:7001 TORTURE_LEDGER_URL=... TORTURE_BULK_RUN=plain \
#     TORTURE_BULK_COUNT=5000 ruby -Ilib torture/bulk_pusher.rb
require "deckhand"
require_relative "app"

module Torture
  module BulkPusher
    ATTEMPTS = 20

    module_function

    def run
      Deckhand.configure do |config|
        config.redis = {url: ENV.fetch("REDIS_URL")}
        config.reliable_push = ENV["TORTURE_RELIABLE_PUSH"] == "1"
      end
      run_id = ENV.fetch("TORTURE_BULK_RUN")
      left = Array.new(Integer(ENV.fetch("TORTURE_BULK_COUNT"))) { |n| ["#{run_id}-#{n}"] }
      books = Hash.new(0)
      until left.empty?
        books["calls"] += 1
        begin
          books["returned"] += TaggedJob.perform_bulk(left).compact.size
          left = []
        rescue Deckhand::Error => e
          raise if books["calls"] >= ATTEMPTS
          books["errors"] += 1
          books["error #{books["errors"]}"] = "#{e.class}: #{e.message}"[0, 200]
          pushed, left = account(e, left)
          books[pushed ? "told" : "untold"] += 1
          books["returned"] += pushed.to_a.size
          sleep 0.05
        end
      end
      Record.ledger.call("HSET", "ledger:pusher", *books.flatten)
    end

    # What a careful caller makes of a push that raised (docs/reliability.md,
    # "Pushes that fail partway"): [the jids the error says were pushed, the
    # args it says were not], once Redis has said what became of any slice
    # in doubt (Deckhand::PushIncomplete#recheck); from an error that does
    # not say (no PushIncomplete), [nil, every job sent]: nothing known to
    # be pushed, so all of them again.
    def account(error, sent)
      return [nil, sent] unless error.is_a?(Deckhand::PushIncomplete)
      sleep 0.2 until error.recheck # never guess: ask until Redis says
      [error.pushed, error.unpushed_args]
    end
  end
end

Torture::BulkPusher.run if $PROGRAM_NAME == __FILE__
