# frozen_string_literal: true

require_relative "../../support/testing/testing_helper"

# The job options under Deckhand::Testing: no lock taken in fake or inline
# mode, the secret bag decrypted for an inline run.
class JobOptionsTestingTest < Minitest::Test
  include Deckhand::TestingHelpers

  class SecretUniqueJob
    include Deckhand::Job

    deckhand_options unique_for: 60, encrypt: true

    def perform(id, bag) = Deckhand::TestJobs.record([id, bag])
  end

  class DebouncedJob
    include Deckhand::Job

    deckhand_options debounce: {key: "all", wait: 30}

    def perform(*) = nil
  end

  def setup
    super
    Deckhand.config.encryption(active_version: 1) { "t" * 32 }
  end

  def test_fake_mode_takes_no_lock_and_holds_the_envelope
    Deckhand::Testing.fake! do
      assert SecretUniqueJob.perform_async(1, {"pin" => "9876"})
      assert SecretUniqueJob.perform_async(1, {"pin" => "9876"}), "no lock in fake mode"
    end
    assert_equal 2, Deckhand::Testing.jobs.size
    assert Deckhand::Encryption.envelope?(Deckhand::Testing.jobs.first["args"].last)
    assert_empty redis.call("KEYS", "*")
  end

  def test_inline_mode_runs_with_the_bag_decrypted
    Deckhand::Testing.inline! { SecretUniqueJob.perform_async(2, {"pin" => "1234"}) }
    assert_equal [[2, {"pin" => "1234"}]], Deckhand::TestJobs.runs
    assert_empty redis.call("KEYS", "unique:*")
  end

  def test_fake_mode_holds_every_collapsing_push_a_debounced_one_its_wait_ahead
    Deckhand::Testing.fake! do
      2.times { |n| DebouncedJob.perform_async(n) }
      RecordJob.set(dedupe: {ttl: 60}).perform_async(1)
      RecordJob.set(dedupe: {ttl: 60}).perform_async(1)
    end
    jobs = Deckhand::Testing.jobs
    assert_equal 4, jobs.size, "no collapsing in fake mode, as no unique lock"
    debounced = jobs.select { |job| job["class"] == DebouncedJob.name }
    assert_equal 2, debounced.size
    debounced.each { |job| assert_in_delta Time.now.to_f + 30, job["at"], 5 }
    assert_empty redis.call("KEYS", "*")
  end
end
