# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/sidekiq8_api_test.rb starts it):
# Sidekiq 8's job profiling on Deckhand's profiler (stackprof on Ruby 3.1,
# Vernier from 3.2.1): Sidekiq::Profiler, Sidekiq::ProfileSet, the `profile`
# option and the Profiles page of Sidekiq::Web.
require "minitest/autorun"
require "sidekiq"
require "sidekiq/profiler"
require "sidekiq/api"
require "sidekiq/web"
require "rack/mock"

class Sidekiq8ProfilingTest < Minitest::Test
  class ReportJob
    include Sidekiq::Job

    def perform = nil
  end

  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def test_the_profiler_keeps_a_profile_sidekiq_reads
    profiler = Sidekiq::Profiler.new(Sidekiq.default_configuration)
    assert_nil profiler.call({}) {}
    result = profiler.call({"profile" => "oli", "class" => "Sidekiq::ActiveJob::Wrapper", "wrapped" => "MyActiveJob", "jid" => "1234"}) { 40.times.sum }
    refute_nil result, "the profiler's result, as Sidekiq's returns Vernier's"
    set = Sidekiq::ProfileSet.new
    assert_equal 1, set.size
    record = set.first
    assert_equal ["oli-1234", "1234", "MyActiveJob", "oli"], [record.key, record.jid, record.type, record.token]
    assert_equal "\x1f\x8b".b, record.data.b[0, 2]
    assert_operator record.size, :>, 2
    assert_kind_of Time, record.started_at
  end

  def test_set_profile_reaches_the_job_and_the_profiles_page_lists_it
    jid = ReportJob.set(profile: "mike").perform_async
    assert_equal "mike", Sidekiq::Queue.new.first["profile"]
    Sidekiq::Profiler.new(Sidekiq.default_configuration).call(Sidekiq::Queue.new.first.item) { nil }
    app = Sidekiq::Web.new
    body = Rack::MockRequest.new(app).get("/profiles").body
    assert_includes body, "mike-#{jid}"
    Sidekiq::Web.configure { |config| config[:profile_store_url] = nil }
    refute_includes Rack::MockRequest.new(app).get("/profiles").body, "View in"
    response = Rack::MockRequest.new(app).get("/profiles/mike-#{jid}/data")
    assert_equal ["application/json", "gzip"], response.headers.values_at("content-type", "content-encoding")
  end
end
