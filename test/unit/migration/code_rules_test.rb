# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "deckhand/migration/check"
require "deckhand/cli/config_file"

# migrate --check's code rules say [ok] or [change] only for Sidekiq's API:
# Rails' own middleware stack and Rails.cache's expires_in: are not Sidekiq's.
class MigrationCodeRulesTest < Minitest::Test
  APPLICATION = <<~RUBY
    module Shop
      class Application < Rails::Application
        config.middleware.insert_before 0, Rack::Cors
        config.middleware.use Rack::Attack
        config.active_job.queue_adapter = :sidekiq
      end
    end
  RUBY

  JOBS = <<~RUBY
    class PriceJob < ApplicationJob
      sidekiq_options retry: 3
      def perform = Rails.cache.fetch("prices", expires_in: 5.minutes) { 1 }
    end

    class SyncJob
      include Sidekiq::Job
      sidekiq_options expires_in: 3600
    end
  RUBY

  INITIALIZER = <<~RUBY
    Sidekiq.configure_server do |config|
      config.server_middleware { |chain| chain.insert_before Tenant, Audit }
    end
  RUBY

  def test_a_size_change_on_jobs_held_before_the_push_works_as_on_sidekiq
    findings = check("spec/jobs_spec.rb" => <<~RUBY)
      require "sidekiq/testing"
      it { expect { PriceJob.perform_async }.to change(PriceJob.jobs, :size).by(1) }
      it { expect { PriceJob.perform_async }.to change { PriceJob.jobs.size }.by(1) }
    RUBY
    sized = findings.find { |finding| finding.what.start_with?("change(MyJob.jobs, :size)") }
    assert_equal [:works, ["spec/jobs_spec.rb:2"]], [sized.verdict, sized.where], "jobs is one live Array (test/unit/testing/modes_test.rb)"
  end

  def test_rails_lines_are_not_sidekiq_findings
    findings = check("config/application.rb" => APPLICATION, "app/jobs/jobs.rb" => JOBS, "config/initializers/sidekiq.rb" => INITIALIZER)
    enterprise = findings.find { |finding| finding.what.start_with?("Sidekiq Enterprise job options") }
    assert_equal ["app/jobs/jobs.rb:8"], enterprise.where, "expires_in: of Rails.cache is no job option"
    chain = findings.find { |finding| finding.what.start_with?("middleware chain insert_before") }
    assert_equal [:works, ["config/initializers/sidekiq.rb:2"]], [chain.verdict, chain.where], "config.middleware is Rails' stack"
    adapter = findings.find { |finding| finding.what.start_with?("Active Job on queue_adapter = :sidekiq") }
    assert_equal [:works, ["config/application.rb:5"]], [adapter.verdict, adapter.where]
  end

  def test_sidekiqs_server_internals_are_unsupported_and_deploy_marks_i18n_web_helpers_and_the_launcher_work
    findings = check("config/initializers/sidekiq.rb" => <<~RUBY)
      require "sidekiq/middleware/i18n"
      Sidekiq::Deploy.mark!
      Sidekiq::Processor.prepend(Timing)
      class Tab; include Sidekiq::WebHelpers; end
      launcher = Sidekiq::Launcher.new(Sidekiq.default_configuration)
    RUBY
    verdict = ->(start) { findings.find { |finding| finding.what.start_with?(start) }&.then { |f| [f.verdict, f.where] } }
    assert_equal [:works, ["config/initializers/sidekiq.rb:1"]], verdict.call("the I18n middleware")
    assert_equal [:works, ["config/initializers/sidekiq.rb:2"]], verdict.call("Sidekiq::Deploy.mark!")
    assert_equal [:unsupported, ["config/initializers/sidekiq.rb:3"]], verdict.call("Sidekiq's server internals")
    assert_equal [:works, ["config/initializers/sidekiq.rb:4"]], verdict.call("Sidekiq::WebHelpers")
    assert_equal [:works, ["config/initializers/sidekiq.rb:5"]], verdict.call("Sidekiq::Launcher")
  end

  private

  def check(files)
    Dir.mktmpdir do |root|
      files.each do |path, text|
        FileUtils.mkdir_p(File.dirname(File.join(root, path)))
        File.write(File.join(root, path), text)
      end
      Deckhand::Migration::Check.new(root, config_file: Deckhand::CLI::ConfigFile).findings
    end
  end
end
