# frozen_string_literal: true

require "test_helper"
require_relative "compat_helper"
require_relative "../dropin/dropin_helper"
require_relative "../e2e/e2e_helper"

# The sample Sidekiq application's jobs cross between the real sidekiq gem
# and Deckhand in drop-in mode, both ways, on one Redis. This process loads
# the shop's job classes on the real gem (they are written for it); the
# Deckhand side is the `deckhand` CLI in a child without the sidekiq gem.
Dir[File.join(Deckhand::DropInHelpers::SHOP, "app/jobs/*.rb")].sort.each { |file| require file }

class DropInShopCompatTest < Minitest::Test
  include Deckhand::CompatTest
  include Deckhand::DropInHelpers
  include Deckhand::E2EHelpers

  def test_jobs_pushed_by_the_sidekiq_gem_run_on_deckhand_in_drop_in_mode
    Shop::ChargeJob.perform_async(21, 700)
    Sidekiq::Client.push("class" => "Shop::ReportJob", "args" => ["sun"], "queue" => "reports")
    cli = deckhand("-C", File.join(SHOP, "config/sidekiq.yml"), app: File.join(SHOP, "config/boot.rb"), env: dropin_env)
    wait_for(message: "the charge, its receipt and the report") do
      trace.include?("charged 21 700") && trace.include?("report sun") && trace.any? { |t| t.start_with?("receipt 21 ") }
    end
    assert_includes trace, "audit Shop::ChargeJob critical/", "pushed without the shop's client middleware: no tenant"
    assert_includes trace, "audit Shop::ReceiptJob mailers/acme"
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus
  end

  def test_jobs_pushed_in_drop_in_mode_run_on_the_sidekiq_gem
    Deckhand::SidekiqHarness.server(queues: %w[mailers reports]) do
      out, status = dropin_ruby("-e", <<~RUBY)
        require "./config/boot"
        Shop::ReceiptJob.perform_async(31, "x@example.com")
        Shop::ReportJob.for_days(%w[sat])
      RUBY
      assert status.success?, out
      wait_for(message: "Sidekiq to run the receipt and the report") do
        trace.include?("report sat") && trace.any? { |t| t.start_with?("receipt 31 x@example.com ") }
      end
    end
  end

  private

  def trace = redis.call("LRANGE", "shop:trace", 0, -1)
end
