# frozen_string_literal: true

# The application workflow tests run. Jobs record what they did under
# `app:` keys in Redis, where the tests read it.

require "deckhand"
require "deckhand/workflow"
require "json"
require "redis_client"
require "connection_pool"

module WorkflowApp
  # The jobs' own connections; the URL is read when the first one opens.
  POOL = ConnectionPool.new(size: 5) { RedisClient.new(url: ENV.fetch("REDIS_URL")) }

  def self.call(*command) = POOL.with { |conn| conn.call(*command) }

  # Every run, in order: [label, args].
  def self.runs = call("LRANGE", "app:runs", 0, -1).map { |raw| JSON.parse(raw) }

  def self.ran(label, args) = call("RPUSH", "app:runs", JSON.generate([label, args]))

  # Records its run, returns {"part" => i}.
  class Part
    include Deckhand::Job

    def perform(id, i)
      WorkflowApp.ran("part", [id, i])
      {"part" => i, "rows" => 10 * i}
    end
  end

  # Records its run and its parents' results; returns their rows' sum.
  class Merge
    include Deckhand::Job

    def perform(id)
      parts = Deckhand::Workflow.results_of("WorkflowApp::Part")
      WorkflowApp.ran("merge", [id, parts])
      parts.sum { |part| part["rows"] }
    end
  end

  # Records its run and what its parents returned, whatever they were.
  class Note
    include Deckhand::Job

    def perform(label)
      WorkflowApp.ran(label, Deckhand::Workflow.results_of)
      label
    end
  end

  # Dies on its first failure: no retries.
  class Doomed
    include Deckhand::Job

    deckhand_options retry: 0

    def perform(label)
      WorkflowApp.ran(label, [])
      raise ArgumentError, "#{label} fails on purpose"
    end
  end

  # Dropped on its first failure: retry disabled.
  class Dropped
    include Deckhand::Job

    deckhand_options retry: false

    def perform(label)
      WorkflowApp.ran(label, [])
      raise ArgumentError, "#{label} fails on purpose"
    end
  end

  # Fails every time, retried (the first retry is due in 15 s or more).
  class Retried
    include Deckhand::Job

    deckhand_options retry: 5

    def perform(label)
      WorkflowApp.ran(label, [])
      raise ArgumentError, "#{label} fails on purpose"
    end
  end

  def self.first?(label) = call("INCR", "app:kills:#{label}") == 1

  # SIGKILLs this process, as the OOM killer would: no ensure block runs.
  def self.die!
    Process.kill("KILL", Process.pid)
    sleep 10 # the signal arrives within microseconds
  end

  # Dies while it runs, the first time (only the end-to-end tests run it).
  class KilledWhileRunning
    include Deckhand::Job

    def perform(label)
      WorkflowApp.ran(label, [Process.pid])
      WorkflowApp.die! if WorkflowApp.first?(label)
      label
    end
  end

  # Dies on its first run (no retries), succeeds on the next: retried by hand from the dead set.
  class DiesFirst
    include Deckhand::Job

    deckhand_options retry: 0

    def perform(label)
      WorkflowApp.ran(label, [])
      raise ArgumentError, "#{label} fails its first run on purpose" if WorkflowApp.first?(label)
      label
    end
  end

  # Decides its fan-out as it runs: adds a Part per i in 0...n to its own
  # workflow (grafted: the steps after it wait for them) and a "tally" Note
  # after them, then records how many steps its add added. With "fail" it
  # raises after its add the first time (retried at once), with "die" it
  # SIGKILLs its process there (end-to-end tests): its rerun adds nothing twice.
  class Splitter
    include Deckhand::Job

    deckhand_options retry: 3
    deckhand_retry_in { 0 }

    def perform(id, n, once = nil)
      flow = Deckhand::Workflow.current
      parts = flow.add_many(Part, (0...n).map { |i| [id, i] })
      flow.add(Note, "tally", after: parts, name: "tally")
      WorkflowApp.ran("split", [id, flow.push])
      first = once && WorkflowApp.first?("split-#{id}")
      raise ArgumentError, "fails after its add on purpose" if first && once == "fail"
      WorkflowApp.die! if first && once == "die"
      n
    end
  end

  # As Splitter, its parts and their tally a sub-workflow ("part <id>")
  # it adds to its own workflow (Workflow.current.add_workflow).
  class SubSplitter
    include Deckhand::Job

    deckhand_options retry: 3
    deckhand_retry_in { 0 }

    def perform(id, n, once = nil)
      part = Deckhand::Workflow.new("part #{id}")
      parts = part.add_many(Part, (0...n).map { |i| [id, i] })
      part.add(Note, "tally", after: parts, name: "tally")
      flow = Deckhand::Workflow.current
      flow.add_workflow(part)
      WorkflowApp.ran("split", [id, flow.push])
      raise ArgumentError, "fails after its add on purpose" if once == "fail" && WorkflowApp.first?("subsplit-#{id}")
      n
    end
  end

  def self.open_gate(label) = call("SET", "app:gate:#{label}", "1")

  # Runs until its gate opens (WorkflowApp.open_gate) or it is cancelled.
  class Gated
    include Deckhand::Job

    def perform(label)
      WorkflowApp.ran(label, [])
      sleep 0.01 until cancelled? || WorkflowApp.call("GET", "app:gate:#{label}")
      label
    end
  end

  # Keeps its value a minute.
  class Square
    include Deckhand::Job

    deckhand_options result: {ttl: 60}

    def perform(n) = {"square" => n * n}
  end

  # Keeps its failure a minute.
  class Broken
    include Deckhand::Job

    deckhand_options result: {ttl: 60}, retry: false

    def perform(_n) = raise(ArgumentError, "broken on purpose")
  end
end
