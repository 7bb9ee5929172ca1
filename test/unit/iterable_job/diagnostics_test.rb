# frozen_string_literal: true

require_relative "../../support/iterable/iterable_helper"

# What an iterable job says about itself: the method it lacks, and at debug
# level how a run ended (in the words Sidekiq's iterable jobs use, so a log
# search written for one finds the other).
class IterableDiagnosticsTest < Minitest::Test
  def setup
    super
    @log = StringIO.new
    Deckhand.config.logger = ::Logger.new(@log, level: ::Logger::DEBUG)
  end

  def run_job(klass, *args)
    job = klass.new
    job.jid = "d#{klass.object_id}"
    job.perform(*args)
  end

  def test_a_missing_method_is_named_with_its_signature
    no_enumerator = Class.new { include Deckhand::IterableJob }
    error = assert_raises(NotImplementedError) { run_job(no_enumerator) }
    assert_match(/must implement a '#build_enumerator' method: build_enumerator\(\*args, cursor:\)/, error.message)

    no_step = Class.new do
      include Deckhand::IterableJob

      def build_enumerator(cursor:) = array_enumerator([1], cursor: cursor)
    end
    error = assert_raises(NotImplementedError) { run_job(no_step) }
    assert_match(/must implement an '#each_iteration' method: each_iteration\(item, \*args\)/, error.message)
  end

  def test_a_completed_run_logs_its_steps_at_debug_level
    run_job(IterableJobs::CountJob, 3)
    assert_match(/CountJob jid=\S+: Completed iteration\. steps=3 runtime=[\d.]+s/, @log.string)
  end

  def test_a_nil_enumerator_and_an_empty_one_are_logged
    nothing = Class.new do
      include Deckhand::IterableJob

      def build_enumerator(cursor:) = nil
    end
    run_job(nothing)
    assert_includes @log.string, "'#build_enumerator' returned nil, skipping the job."

    run_job(IterableJobs::CountJob, 0)
    assert_includes @log.string, "Enumerator found nothing to iterate"
  end
end
