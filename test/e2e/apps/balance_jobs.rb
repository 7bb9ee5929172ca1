# frozen_string_literal: true

# The application of the auto-balance SIGKILL test: a CPU-bound job and an
# I/O-bound one, each recording its jid in e2e:ran when it finishes.
require_relative "jobs"

module E2E
  class SpinJob
    include Deckhand::Job

    def perform(ms)
      start = ::Process.clock_gettime(::Process::CLOCK_THREAD_CPUTIME_ID, :float_millisecond)
      nil while ::Process.clock_gettime(::Process::CLOCK_THREAD_CPUTIME_ID, :float_millisecond) - start < ms
      E2E.call("RPUSH", "e2e:ran", jid)
    end
  end

  class NapJob
    include Deckhand::Job

    def perform(ms)
      sleep(ms / 1000.0)
      E2E.call("RPUSH", "e2e:ran", jid)
    end
  end
end
