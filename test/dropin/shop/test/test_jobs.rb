# frozen_string_literal: true

# The shop's own unit tests, as a Sidekiq application writes them.
# Run: ruby -I test test/test_jobs.rb
require "minitest/autorun"
require "sidekiq/testing"
require_relative "../config/boot"

class TestJobs < Minitest::Test
  def setup
    Sidekiq::Testing.fake!
    Sidekiq::Worker.clear_all
    Shop.events = []
  end

  def teardown
    Shop.events = nil
  end

  def test_a_charge_is_queued_then_sends_a_receipt
    jid = Shop::ChargeJob.perform_async(7, 1500)
    assert_equal 1, Shop::ChargeJob.jobs.size
    job = Shop::ChargeJob.jobs.first
    assert_equal jid, job["jid"]
    assert_equal "critical", job["queue"]
    assert_equal [7, 1500], job["args"]
    assert_equal "acme", job["tenant"], "the client middleware ran"

    Shop::ChargeJob.drain
    assert_equal ["charged 7 1500"], Shop.events
    assert_equal [[7, "buyer-7@example.com"]], Shop::ReceiptJob.jobs.map { |j| j["args"] }
    assert_equal "mailers", Shop::ReceiptJob.jobs.first["queue"]

    Sidekiq::Worker.drain_all
    assert_equal 0, Sidekiq::Worker.jobs.size
    assert_match(/\Areceipt 7 buyer-7@example.com \h{24}\z/, Shop.events.last)
  end

  def test_inline_mode_runs_jobs_at_once
    Sidekiq::Testing.inline! do
      Shop::ChargeJob.perform_async(8, 900)
    end
    assert_equal "charged 8 900", Shop.events.first
    assert_match(/\Areceipt 8 /, Shop.events.last)
    assert_empty Shop::ReceiptJob.jobs
  end

  def test_bulk_reports_go_to_their_queue
    Shop::ReportJob.for_days(%w[mon tue wed])
    assert_equal 3, Shop::ReportJob.jobs.size
    assert_equal 3, Sidekiq::Queues["reports"].size
    assert_equal false, Shop::ReportJob.get_sidekiq_options["retry"]
    Shop::ReportJob.drain
    assert_equal ["report mon", "report tue", "report wed"], Shop.events
  end

  def test_a_declined_card_raises_and_reports_when_retries_run_out
    Shop::ChargeJob.perform_async(9, -1)
    assert_raises(Shop::PaymentDeclined) { Shop::ChargeJob.drain }
    assert_equal 2, Shop::ChargeJob.get_sidekiq_options["retry"]
    Shop::ChargeJob.sidekiq_retries_exhausted_block.call({"args" => [9]}, Shop::PaymentDeclined.new("card declined"))
    assert_equal ["exhausted 9 card declined"], Shop.events
  end

  def test_scheduled_and_inline_pushes
    Shop::ReceiptJob.perform_in(3600, 10, "later@example.com")
    assert_in_delta Time.now.to_f + 3600, Shop::ReceiptJob.jobs.first["at"], 60
    Shop::ReceiptJob.set(queue: "critical").perform_async(11, "now@example.com")
    assert_equal "critical", Shop::ReceiptJob.jobs.last["queue"]
    Shop::ReceiptJob.perform_inline(12, "inline@example.com")
    assert_match(/\Areceipt 12 inline@example.com/, Shop.events.last)
  end
end
