# frozen_string_literal: true

require "test_helper"
require "open3"
require "tmpdir"
require_relative "compat_helper"
require_relative "../dropin/dropin_helper"
require_relative "../e2e/e2e_helper"

# Active Job jobs cross a mixed fleet both ways on one Redis: the real
# sidekiq gem of the bundle, 7.3 or 8.1 (its own Active Job adapter), on one side, the Rails test
# app (test/rails/app) on Deckhand without the sidekiq gem on the other, in
# native mode (`queue_adapter = :deckhand`) and drop-in mode
# (deckhand/sidekiq, `queue_adapter = :sidekiq`), eager-loaded or not.
module Deckhand
  # A GEM_HOME holding every gem of this bundle but sidekiq (links, not
  # copies): a child using it finds the app's gems the way Bundler would
  # (Active Record's `gem "sqlite3"`), and fails `gem "sidekiq"` as a bundle
  # without it does.
  module GemHomeWithoutSidekiq
    def self.path
      @path ||= build
    end

    def self.build
      dir = Dir.mktmpdir("deckhand-gems-without-sidekiq")
      Minitest.after_run { FileUtils.rm_rf(dir) }
      Gem.loaded_specs.each_value do |spec|
        next if spec.name.start_with?("sidekiq") || spec.default_gem? || File.basename(File.dirname(spec.loaded_from.to_s)) != "specifications"
        link(spec.loaded_from, File.join(dir, "specifications", File.basename(spec.loaded_from)))
        link(spec.full_gem_path, File.join(dir, "gems", spec.full_name))
        link(spec.extension_dir, File.join(dir, spec.extension_dir.delete_prefix(spec.base_dir))) if spec.extensions.any?
      end
      dir
    end

    def self.link(target, at)
      return unless File.exist?(target)
      FileUtils.mkdir_p(File.dirname(at))
      File.symlink(target, at) unless File.exist?(at)
    end
  end
end

class ActiveJobCrossingTest < Minitest::Test
  include Deckhand::CompatTest
  include Deckhand::DropInHelpers
  include Deckhand::E2EHelpers

  RAILS_APP = File.expand_path("../rails/app", __dir__)
  # The class the sidekiq gem's adapter pushes (Sidekiq 8 names its own).
  SIDEKIQ_WRAPPER = Deckhand::SidekiqHarness.sidekiq_7? ? "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper" : "Sidekiq::ActiveJob::Wrapper"

  # What a Sidekiq web process does: Rails' `queue_adapter = :sidekiq` on the
  # sidekiq gem's own adapter, plus a job as Sidekiq 8 writes it.
  SIDEKIQ_PUSH = <<~RUBY
    require "rails"
    require "active_job"
    require "sidekiq"
    require "sidekiq/rails"
    require File.join(Gem.loaded_specs["sidekiq"].full_gem_path, "lib/active_job/queue_adapters/sidekiq_adapter")
    Sidekiq.configure_client { |config| config.redis = {url: ENV.fetch("REDIS_URL")} }
    ActiveJob::Base.logger = Logger.new(File::NULL)
    ActiveJob::Base.queue_adapter = :sidekiq
    module RailsJobs
      class CrossingJob < ActiveJob::Base
        queue_as :crossing
      end
    end
    RailsJobs::CrossingJob.perform_later("the sidekiq gem's adapter")
    Sidekiq::Client.push("class" => "Sidekiq::ActiveJob::Wrapper", "wrapped" => "RailsJobs::CrossingJob",
      "queue" => "crossing", "args" => [RailsJobs::CrossingJob.new("sidekiq 8 wrapper").serialize])
  RUBY

  def setup
    super
    @database_dir = Dir.mktmpdir("deckhand-crossing")
  end

  def teardown
    super
  ensure
    FileUtils.rm_rf(@database_dir)
  end

  def test_sidekiq_pushed_jobs_run_on_deckhand_native_lazily_loaded = sidekiq_to_deckhand(dropin: false, eager: false)

  def test_sidekiq_pushed_jobs_run_on_deckhand_native_eager_loaded = sidekiq_to_deckhand(dropin: false, eager: true)

  def test_sidekiq_pushed_jobs_run_on_deckhand_drop_in_lazily_loaded = sidekiq_to_deckhand(dropin: true, eager: false)

  def test_sidekiq_pushed_jobs_run_on_deckhand_drop_in_eager_loaded = sidekiq_to_deckhand(dropin: true, eager: true)

  def test_jobs_pushed_in_drop_in_mode_run_on_a_sidekiq_7_server_lazily_loaded = deckhand_to_sidekiq(eager: false)

  def test_jobs_pushed_in_drop_in_mode_run_on_a_sidekiq_7_server_eager_loaded = deckhand_to_sidekiq(eager: true)

  private

  def deckhand_to_sidekiq(eager:)
    Deckhand::SidekiqHarness.server(queues: ["crossing"], setup: method(:sidekiq_runs_active_job)) do |pid|
      out, status = dropin_ruby("-e", <<~RUBY, chdir: RAILS_APP, env: app_env(dropin: true, eager: eager), preload: false)
        require "./config/environment"
        RailsJobs::CrossingJob.perform_later("perform_later")
        ActiveJob.perform_all_later([RailsJobs::CrossingJob.new("perform_all_later")])
      RUBY
      assert status.success?, out
      ran = wait_for(message: "Sidekiq to run both Active Job jobs") { crossings.size == 2 && crossings }
      assert_equal ["perform_all_later", "perform_later"], ran.map { |entry| entry[1] }.sort
      assert_equal [pid], ran.map(&:last).uniq, "run in the Sidekiq process"
    end
    assert_equal [0, 0, 0], [redis.call("LLEN", "queue:crossing"), redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead")]
  end

  def sidekiq_to_deckhand(dropin:, eager:)
    out, status = Open3.capture2e({"REDIS_URL" => Deckhand::RedisHarness.url}, RbConfig.ruby, "-e", SIDEKIQ_PUSH)
    assert status.success?, out
    queued = jobs_in("crossing")
    # The gem's adapter writes Sidekiq 7's name or Sidekiq 8's; the second job is Sidekiq 8's by hand.
    written = Sidekiq::VERSION.start_with?("7.") ? SIDEKIQ_WRAPPER : "Sidekiq::ActiveJob::Wrapper"
    assert_equal [written, "Sidekiq::ActiveJob::Wrapper"], queued.map { |job| job["class"] }.reverse
    cli = deckhand("-q", "crossing", app: RAILS_APP, env: dropin_env(app_env(dropin: dropin, eager: eager), preload: false))
    # A child JVM that eager-loads Rails takes minutes to boot at load 10 (CliProcess::SLOWER).
    ran = begin
      wait_for(timeout: 45 * Deckhand::CliProcess::SLOWER, message: "Deckhand to run both jobs Sidekiq pushed") { crossings.size == 2 && crossings }
    rescue Minitest::Assertion => e
      raise e.class, "#{e.message}; the server's output:\n#{cli.output}" # a boot error, say
    end
    assert_equal ["sidekiq 8 wrapper", "the sidekiq gem's adapter"], ran.map { |entry| entry[1] }.sort
    assert_equal queued.map { |job| job["jid"] }.sort, ran.map { |entry| entry[2] }.sort, "Active Job sees the jid as provider_job_id"
    assert_equal [cli.pid], ran.map(&:last).uniq, "run in the Deckhand process"
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus, cli.output
    refute_match(/Gem::LoadError|not part of the bundle|ThreadDied/, cli.output)
    assert_equal [0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead")]
  end

  def app_env(dropin:, eager:)
    home = Deckhand::GemHomeWithoutSidekiq.path
    {"GEM_HOME" => home, "GEM_PATH" => home, "RAILS_TEST_DATABASE" => File.join(@database_dir, "test.sqlite3"), "RAILS_TEST_DROPIN" => dropin ? "1" : "0",
     "RAILS_TEST_EAGER" => eager ? "1" : "0"}
  end

  # In the Sidekiq child: Active Job on the sidekiq gem's adapter, and the
  # app's job classes (already here if this process booted the Rails app).
  def sidekiq_runs_active_job(_config)
    require "rails"
    require "active_job"
    require "sidekiq/rails"
    require File.join(Gem.loaded_specs["sidekiq"].full_gem_path, "lib/active_job/queue_adapters/sidekiq_adapter")
    ::ActiveJob::Base.logger = ::Logger.new(File::NULL)
    return if defined?(::RailsJobs::CrossingJob)
    require File.join(RAILS_APP, "app/jobs/application_job")
    require File.join(RAILS_APP, "app/jobs/rails_jobs")
  end

  def crossings = redis.call("LRANGE", "rails:log", 0, -1).map { |raw| JSON.parse(raw) }.select { |entry| entry.first == "crossing" }
end
