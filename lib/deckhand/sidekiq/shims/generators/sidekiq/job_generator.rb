# frozen_string_literal: true

require "generators/deckhand/job/job_generator"

module Sidekiq
  module Generators
    # `rails g sidekiq:job HardWork [--queue low]` in drop-in mode (this file
    # is on the load path only there): Deckhand's job generator, writing a
    # Sidekiq-style job to app/sidekiq/hard_work_job.rb and its test to
    # test/sidekiq/ (spec/sidekiq/ when the app's generators use RSpec, none
    # when they have no test framework), as Sidekiq's generator does.
    class JobGenerator < Deckhand::Generators::JobGenerator
      desc "Creates a Sidekiq job (run by Deckhand in drop-in mode) and its test"
      source_root File.expand_path("templates", __dir__)

      def create_job
        template "job.rb.tt", File.join("app/sidekiq", class_path, "#{file_name}_job.rb")
      end

      def create_test
        case test_framework
        when :rspec then template "job_spec.rb.tt", File.join("spec/sidekiq", class_path, "#{file_name}_job_spec.rb")
        when :test_unit, :test_case, :minitest then template "job_test.rb.tt", File.join("test/sidekiq", class_path, "#{file_name}_job_test.rb")
        end
      end

      private

      # The app's `config.generators.test_framework` (false: no test), read
      # from the application's configuration as it is now; a spec/ folder
      # means RSpec when it names none.
      def test_framework
        app = ::Rails.respond_to?(:application) && ::Rails.application
        options = app ? app.config.generators.options : ::Rails::Generators.options
        configured = options.dig(:rails, :test_framework)
        return configured.to_sym if configured
        return nil if configured == false
        File.directory?(File.join(destination_root, "spec")) ? :rspec : :test_unit
      end
    end
  end
end
