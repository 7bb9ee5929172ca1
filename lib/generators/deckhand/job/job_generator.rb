# frozen_string_literal: true

require "rails/generators/named_base"

module Deckhand
  module Generators
    # `rails g deckhand:job WelcomeEmail [--queue mailers]` writes
    # app/jobs/welcome_email_job.rb, a Deckhand job, and its test (or spec,
    # in an app with a spec/ folder).
    class JobGenerator < ::Rails::Generators::NamedBase
      desc "Creates a Deckhand job and its test"
      source_root File.expand_path("templates", __dir__)
      class_option :queue, type: :string, default: "default", desc: "The queue its jobs go to"

      def create_job
        template "job.rb.tt", File.join("app/jobs", class_path, "#{file_name}_job.rb")
      end

      def create_test
        if File.directory?(File.join(destination_root, "spec"))
          template "job_spec.rb.tt", File.join("spec/jobs", class_path, "#{file_name}_job_spec.rb")
        else
          template "job_test.rb.tt", File.join("test/jobs", class_path, "#{file_name}_job_test.rb")
        end
      end

      private

      # "WelcomeEmail" and "WelcomeEmailJob" both make WelcomeEmailJob.
      def file_name = @job_file_name ||= super.sub(/_?job\z/i, "")

      def queue = options[:queue]
    end
  end
end
