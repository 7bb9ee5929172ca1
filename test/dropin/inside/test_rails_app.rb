# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/rails_app_test.rb starts it): what
# `require "sidekiq/rails"` gives a Rails application in drop-in mode.
require "minitest/autorun"
require "tmpdir"
require "rails"
require "active_job"
require "deckhand/sidekiq" # the Gemfile's require: "deckhand/sidekiq", after Rails
require "sidekiq/rails"
require "rails/generators"

class DropInRailsApp < Rails::Application
  config.eager_load = false
  config.logger = Logger.new(nil)
end

class RailsAppInsideTest < Minitest::Test
  # An application whose reloader records how it was asked to wrap.
  RecordingApp = Struct.new(:calls) do
    def reloader = self

    def wrap(**options)
      calls << options
      yield
    end
  end

  def test_sidekiq_rails_reloader_runs_the_block_inside_the_applications_reloader
    app = RecordingApp.new([])
    assert_equal :done, Sidekiq::Rails::Reloader.new(app).call { :done }
    assert_equal [{source: "job.sidekiq"}], app.calls, "Rails 7.1+ names the source"
    reloader = Sidekiq::Rails::Reloader.new
    assert_equal 2, reloader.call { 1 + 1 }, "the application's own reloader by default"
    assert_equal({app: "DropInRailsApp"}, reloader.to_hash)
  end

  def test_including_sidekiq_job_in_an_active_job_class_is_refused
    error = assert_raises(ArgumentError) { Class.new(ActiveJob::Base) { include Sidekiq::Job } }
    assert_includes error.message, "Sidekiq::Job cannot be included in an ActiveJob"
    assert Class.new { include Sidekiq::Job }.respond_to?(:perform_async), "a plain class still includes it"
  end

  def test_the_job_generator_follows_the_applications_test_framework_as_it_is_now
    Dir.mktmpdir do |root|
      Rails.application.config.generators { |g| g.test_framework false }
      capture_io { Rails::Generators.invoke("sidekiq:job", ["Quiet"], destination_root: root) }
      assert File.file?(File.join(root, "app/sidekiq/quiet_job.rb"))
      assert_empty Dir.glob("{test,spec}/**/*", base: root), "no test framework, no test file"
      Rails.application.config.generators { |g| g.test_framework :rspec }
      capture_io { Rails::Generators.invoke("sidekiq:job", ["Spoken"], destination_root: root) }
      assert File.file?(File.join(root, "spec/sidekiq/spoken_job_spec.rb"))
    end
  ensure
    Rails.application.config.generators { |g| g.test_framework :test_unit }
  end
end
