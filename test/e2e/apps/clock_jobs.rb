# frozen_string_literal: true

# The application the clock-skew tests boot: the reliability app (reaper
# timing from the environment) and jobs that record when they ran by Redis'
# clock, never their host's (the host's is what the tests make wrong).
require_relative "../../support/reliability_app"

module E2E
  # Redis' time, epoch seconds.
  def self.redis_time
    seconds, micros = call("TIME")
    Integer(seconds) + (Integer(micros) / 1_000_000.0)
  end

  # Records [jid, pid, Redis' time] at its start in e2e:clock:runs, then
  # holds its thread for `seconds`.
  class StampJob
    include Deckhand::Job

    deckhand_options queue: "clock"

    def perform(seconds)
      E2E.call("RPUSH", "e2e:clock:runs", JSON.generate([jid, Process.pid, E2E.redis_time]))
      sleep seconds
    end
  end

  # Fails, to be retried in 30 s.
  class FailStampJob
    include Deckhand::Job

    deckhand_options queue: "clock", retry: 1
    deckhand_retry_in { 30 }

    def perform
      E2E.call("RPUSH", "e2e:clock:runs", JSON.generate([jid, Process.pid, E2E.redis_time]))
      raise "fails"
    end
  end
end
