# frozen_string_literal: true

require_relative "dropin_helper"

# The files applications require for Sidekiq's public classes, in drop-in
# mode (inside/test_sidekiq_files.rb holds the assertions).
class DropInSidekiqFilesTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_sidekiq_public_files_load_and_map_to_deckhand
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_files.rb", __dir__))
  end

  def test_the_data_api_loads_when_named_as_in_a_sidekiq_server
    out, status = dropin_ruby("-e", <<~RUBY)
      require "sidekiq"
      abort "loaded early" if $LOADED_FEATURES.any? { |f| f.end_with?("deckhand/sidekiq/api.rb") }
      print Sidekiq::DeadSet.new.size.class, " ", Sidekiq::Queue.new("default").name, " ", Sidekiq::Workers.equal?(Sidekiq::WorkSet)
    RUBY
    assert status.success?, out
    assert_equal "Integer default true", out.lines.last
  end

  def test_sidekiq_api_loads_the_metrics_query_as_sidekiqs_does
    out, status = dropin_ruby("-e", 'require "sidekiq/api"; print Sidekiq::Metrics::Query.new.top_jobs(minutes: 5).job_results.class')
    assert status.success?, out
    assert_equal "Hash", out.lines.last
  end
end
