# frozen_string_literal: true

require_relative "rails_helper"
require "rails/generators"

class JobGeneratorTest < Minitest::Test
  include Deckhand::RailsTestApp

  def setup
    super
    @root = Dir.mktmpdir("deckhand-generator")
  end

  def teardown
    FileUtils.rm_rf(@root)
    super
  end

  def test_writes_a_job_and_its_test
    generate("GeneratedGreeting", "--queue", "mailers")
    job = File.read(File.join(@root, "app/jobs/generated_greeting_job.rb"))
    assert_includes job, "class GeneratedGreetingJob\n  include Deckhand::Job\n  deckhand_options queue: \"mailers\""
    test = File.read(File.join(@root, "test/jobs/generated_greeting_job_test.rb"))
    assert_includes test, "class GeneratedGreetingJobTest < ActiveSupport::TestCase"
    assert_includes test, "assert_enqueued GeneratedGreetingJob, queue: \"mailers\""

    Object.class_eval(job, "generated_greeting_job.rb")
    assert_equal "mailers", GeneratedGreetingJob.deckhand_options["queue"]
    GeneratedGreetingJob.perform_async
    assert_equal "mailers", jobs_in("mailers").first["queue"]
  ensure
    Object.send(:remove_const, :GeneratedGreetingJob) if defined?(GeneratedGreetingJob)
  end

  def test_a_name_ending_in_job_and_a_namespace
    generate("Billing::InvoiceJob")
    assert File.exist?(File.join(@root, "app/jobs/billing/invoice_job.rb"))
    assert_includes File.read(File.join(@root, "app/jobs/billing/invoice_job.rb")), "class Billing::InvoiceJob"
    assert File.exist?(File.join(@root, "test/jobs/billing/invoice_job_test.rb"))
  end

  def test_an_app_with_specs_gets_a_spec
    FileUtils.mkdir_p(File.join(@root, "spec"))
    generate("Report")
    spec = File.read(File.join(@root, "spec/jobs/report_job_spec.rb"))
    assert_includes spec, "expect(described_class).to have_enqueued_deckhand_job.on_queue(\"default\")"
  end

  private

  def generate(*args)
    capture_io { Rails::Generators.invoke("deckhand:job", args, destination_root: @root) }
  end
end
