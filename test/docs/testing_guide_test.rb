# frozen_string_literal: true

require "test_helper"
require "open3"
require "tmpdir"
require_relative "doc_examples"

# The testing guide's examples (docs/testing.md) as an application's test
# suite would hold them, run in a Ruby process of their own: requiring
# deckhand/testing switches the whole process to fake mode, as it does in
# the application. Its stand-ins (a signup service, a mailer) are the least
# the examples need.
class DocsTestingGuideTest < Minitest::Test
  LIB = File.join(Deckhand::DocExamples::ROOT, "lib")

  def example(name)
    block = Deckhand::DocExamples.fetch(name)
    # A line directive of sorts: errors point at the guide.
    "# #{block.file}:#{block.line}\n#{block.code}"
  end

  def suite
    <<~RUBY
      $LOAD_PATH.unshift(#{LIB.inspect})
      #{example("testing-helper")}
      require "minitest/autorun"
      require "active_support/all"
      require "active_support/test_case"
      require "rspec/expectations"
      require "deckhand/testing/rspec" # spec/rails_helper.rb has this one; without rspec-core it adds the matcher only

      module ActionMailer
        class Base
          def self.deliveries = @deliveries ||= []
        end
      end

      class WelcomeEmailJob
        include Deckhand::Job
        deckhand_options queue: "mailers"

        def perform(user_id) = ActionMailer::Base.deliveries << user_id
      end

      class ReportJob
        include Deckhand::Job

        def perform(*) = nil
      end

      module SignupService
        def self.call(_email) = WelcomeEmailJob.perform_async(42)
      end

      #{example("testing-clear")}

      class GuideTest < ActiveSupport::TestCase
        setup { ActionMailer::Base.deliveries.clear }

        #{example("testing-fake")}

        def test_inline_mode
          #{example("testing-inline")}
          assert_equal [42], ActionMailer::Base.deliveries
          assert_empty WelcomeEmailJob.jobs
        end

        def test_assertions
          2.times { WelcomeEmailJob.perform_async(42) }
          ReportJob.perform_in(3600)
          ReportJob.perform_at(Date.tomorrow.noon, "weekly")
          #{example("testing-assertions")}
        end

        def invite(*users) = users.each { |user| WelcomeEmailJob.perform_async(user) }

        def invite_nobody = nil

        def a = 1

        def b = 2
      end

      class GuideMatcherTest < ActiveSupport::TestCase
        include RSpec::Matchers
        include Deckhand::Testing::Matchers

        def test_rspec_matcher
          2.times { WelcomeEmailJob.perform_async(42) }
          ReportJob.perform_in(3600)
          ReportJob.perform_at(Date.tomorrow.noon, "weekly")
          #{example("testing-rspec")}
        end
      end
    RUBY
  end

  def test_the_guides_examples_pass_as_an_applications_tests
    Dir.mktmpdir do |dir|
      file = File.join(dir, "guide_test.rb")
      File.write(file, suite)
      # No REDIS_URL: fake and inline modes must not need Redis.
      output, status = Open3.capture2e({"REDIS_URL" => "redis://127.0.0.1:1/0"}, RbConfig.ruby, file)
      assert status.success?, output
      assert_match(/4 runs, \d+ assertions, 0 failures, 0 errors, 0 skips/, output)
    end
  end
end
