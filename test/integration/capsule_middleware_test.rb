# frozen_string_literal: true

require "test_helper"

# A capsule with its own server middleware runs its jobs in that chain; the
# other capsules keep the configuration's.
class CapsuleMiddlewareTest < Minitest::Test
  # Tags each job it wraps with its name, so the run shows which chain ran.
  class Tagger
    def call(_job, payload, _queue)
      (payload["tags_seen"] ||= []) << self.class.name.split("::").last
      yield
    end
  end

  class AppTag < Tagger; end

  class ImportTag < Tagger; end

  class LateTag < Tagger; end

  # Says it only yields for a job whose label is not "watched"; counts its instances.
  class PassUnlessWatched < Tagger
    BUILT = Queue.new

    def self.deckhand_passes?(payload) = payload["args"].first != "watched"

    def initialize = BUILT << :built
  end

  class TaggedJob
    include Deckhand::Job

    def perform(label) = Deckhand::TestJobs.record([label, deckhand_payload["tags_seen"]])
  end

  def setup
    super
    Deckhand.config = new_config(concurrency: 2, heartbeat_interval: 0.1, timeout: 2)
  end

  def test_a_capsules_own_chain_starts_as_a_copy_of_the_configurations
    config = Deckhand.config
    config.server_middleware.add(AppTag)
    config.capsule("imports", concurrency: 1, queues: ["imports"]) do |cap|
      cap.server_middleware.add(ImportTag)
    end
    config.capsule("plain", concurrency: 1, queues: ["plain"])
    config.server_middleware.add(LateTag) # after the copy: not in the imports chain

    TaggedJob.perform_async("default")
    TaggedJob.set(queue: "imports").perform_async("imports")
    TaggedJob.set(queue: "plain").perform_async("plain")
    with_server { wait_for(message: "3 runs") { Deckhand::TestJobs.runs.size == 3 } }

    seen = Deckhand::TestJobs.runs.to_h
    assert_equal %w[AppTag ImportTag], seen.fetch("imports")
    assert_equal %w[AppTag LateTag], seen.fetch("default")
    assert_equal %w[AppTag LateTag], seen.fetch("plain")
    assert_nil config.capsules.fetch("plain").server_middleware
  end

  # A job every middleware only yields for runs without its chain built;
  # one a middleware wants runs through the whole chain.
  def test_a_chain_that_would_only_yield_for_a_job_is_not_built_for_it
    Deckhand.config.server_middleware.add(PassUnlessWatched)
    TaggedJob.perform_async("passed")
    TaggedJob.perform_async("watched")
    with_server { wait_for(message: "2 runs") { Deckhand::TestJobs.runs.size == 2 } }

    seen = Deckhand::TestJobs.runs.to_h
    assert_nil seen.fetch("passed"), "no middleware ran around it"
    assert_equal %w[PassUnlessWatched], seen.fetch("watched")
    assert_equal 1, PassUnlessWatched::BUILT.size, "built for the watched job only"
  end

  def test_the_capsules_chain_is_frozen_at_boot_and_checked
    Deckhand.config.capsule("imports", concurrency: 1, queues: ["imports"]) { |cap| cap.server_middleware.add(ImportTag) }
    chain = Deckhand.config.capsules.fetch("imports").server_middleware
    Deckhand.config.freeze!
    assert_predicate chain, :frozen?
    error = assert_raises(Deckhand::ConfigError) do
      Deckhand::Config::Capsule.new("x", concurrency: 1, queues: ["x"], server_middleware: [Tagger])
    end
    assert_match(/server_middleware must be a Deckhand::Middleware::Chain/, error.message)
  end
end
