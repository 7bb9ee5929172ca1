# frozen_string_literal: true

require_relative "dropin_helper"
require_relative "../e2e/e2e_helper"

# `deckhand migrate --check`, the real command, on the sample Sidekiq app and
# on an app using plugins Deckhand does not support.
class MigrateCheckTest < Minitest::Test
  include Deckhand::DropInHelpers
  include Deckhand::E2EHelpers

  LEGACY = File.expand_path("legacy_app", __dir__)
  ENTERPRISE = File.expand_path("enterprise_app", __dir__)

  def test_the_sample_app_needs_only_the_gemfile_change
    cli = deckhand_run("migrate", "--check", SHOP)
    assert_equal 0, cli.status.exitstatus, cli.output
    out = cli.stdout
    assert_includes out, "Needs a change (1):"
    assert_includes out, "[change] gem sidekiq 7.3.10 (Gemfile.lock): replace it with `gem \"deckhand\", require: \"deckhand/sidekiq\"`"
    assert_includes out, "Unsupported (0):"
    assert_match(/\[ok\] job classes \(include Sidekiq::Job \/ Sidekiq::Worker\): 3 uses/, out)
    assert_includes out, "[ok] Sidekiq's config file, read by `deckhand -C config/sidekiq.yml`"
    assert_includes out, "[ok] Sidekiq::Testing"
    assert_includes out, "Nothing unsupported found."
  end

  def test_an_app_with_unsupported_plugins_is_told_what_and_where
    cli = deckhand_run("migrate", "--check", LEGACY)
    assert_equal 1, cli.status.exitstatus, cli.output
    out = cli.stdout
    unsupported = out[/^Unsupported \(\d+\):\n(.*?)\n\n/m, 1].lines
    assert_equal 3, unsupported.size, out
    assert_includes out, "[unsupported] gem sidekiq-throttled 1.4.0 (Gemfile.lock): it replaces Sidekiq's fetch"
    assert_includes out, "[unsupported] gem sidekiq-heroku-autoscale 0.1.0 (Gemfile.lock): a Sidekiq plugin the check does not know"
    assert_includes out, "[ok] Sidekiq::Limiter (Deckhand's rate limiters): 1 use (app/workers/nightly_worker.rb:10)"
    assert_includes out, "[change] Sidekiq::Client.via (Redis sharding): 1 use (app/workers/nightly_worker.rb:13): a pool from Sidekiq::RedisConnection.create(url: ...) or a ConnectionPool of redis-client connections is taken"
    assert_includes out, "[change] sidekiq_options pool: (Redis sharding): 1 use (app/workers/nightly_worker.rb:8)"
    assert_includes out, "[unsupported] config.on(:leader): 1 use (config/initializer.rb:6)"
    assert_includes out, "[ok] config.on(:heartbeat) / config.on(:beat) / config.on(:exit) (Deckhand fires them): 1 use (config/initializer.rb:5)"
    assert_includes out, "[ok] Sidekiq::Launcher (a Deckhand server; PROCTITLES name the process), Processor::WORK_STATE and its counters: 1 use (config/initializer.rb:9)"
    assert_includes out, "[change] gem sidekiq-cron 2.0.1 (Gemfile.lock): remove it: Deckhand's periodic jobs read its schedule as is"
    assert_includes out, %(add `gem "fugit"` to the Gemfile, which it brought along)
    assert_includes out, "[ok] sidekiq-scheduler's schedule in the config file, read by `deckhand -C config/sidekiq.yml` (config/sidekiq.yml)"
    assert_includes out, "[ok] schedule entry \"nightly\" (NightlyWorker): a periodic job, cron \"0 3 * * *\" (config/sidekiq.yml)"
    assert_includes out, "[change] settings Deckhand does not have: pidfile (config/sidekiq.yml): remove them"
    assert_includes out, "[change] gem sidekiq-pro 7.3.4"
    assert_includes out, "[ok] gem sidekiq-status 3.0.3 (Gemfile.lock): its suite passes in drop-in mode but for one thing"
    assert_includes out, "[ok] gem rspec-sidekiq 5.3.0 (Gemfile.lock): its matchers pass their own specs in drop-in mode"
    assert_includes out, "[change] gem sidekiq-failures 1.1.0 (Gemfile.lock): its failure-recording middleware works in drop-in mode"
    assert_includes out, "Unsupported APIs found"
  end

  def test_a_schedule_file_the_app_loads_already_is_no_change_to_make
    {"config/deckhand.yml" => "periodic:\n  sidekiq_schedule: config/schedule.yml\n",
     "config/initializers/deckhand.rb" => %(Deckhand.configure { |c| c.periodic { |cron| cron.load_sidekiq_schedule("config/schedule.yml") } }\n)}
      .each do |file, text|
        Dir.mktmpdir("deckhand-migrate") do |dir|
          FileUtils.cp_r("#{ENTERPRISE}/.", dir)
          FileUtils.mkdir_p(File.dirname(File.join(dir, file)))
          File.write(File.join(dir, file), text)
          out = deckhand_run("migrate", "--check", dir).stdout
          assert_includes out, "[ok] a schedule file (sidekiq-cron / sidekiq-scheduler), loaded by #{file} (config/schedule.yml)", out
          refute_includes out, "[change] a schedule file"
          assert_includes out, "[ok] schedule entry \"nightly_report\" (ReportJob): a periodic job", "its entries are still read"
        end
      end
  end

  def test_enterprise_options_schedules_and_unique_jobs_locks_are_reported_one_by_one
    cli = deckhand_run("migrate", "--check", ENTERPRISE)
    assert_equal 1, cli.status.exitstatus, cli.output
    out = cli.stdout
    [
      "[ok] Sidekiq Enterprise job options (unique_for, unique_until, expires_in, encrypt): 1 use (app/jobs/charge_job.rb:6)",
      "[ok] Sidekiq Enterprise periodic jobs (config.periodic { |mgr| mgr.register(...) }): 1 use (config/initializers/sidekiq.rb:8)",
      "[ok] Sidekiq Enterprise encryption (Crypto.enable): 1 use (config/initializers/sidekiq.rb:3): jobs Sidekiq Enterprise encrypted are not readable",
      "[ok] sidekiq-unique-jobs lock: :until_executed / :until_executing (Deckhand's unique jobs): 1 use (app/jobs/sync_job.rb:6): each needs lock_ttl:",
      "[change] gem sidekiq-ent 7.3.4 (Gemfile.lock): remove it: unique jobs, expiring jobs, encryption and periodic jobs work in drop-in mode",
      "[change] gem sidekiq-unique-jobs 8.0.10 (Gemfile.lock): remove it:",
      "[change] a schedule file (sidekiq-cron / sidekiq-scheduler) (config/schedule.yml): load it with `periodic: {sidekiq_schedule: config/schedule.yml}`",
      "[ok] schedule entry \"nightly_report\" (ReportJob): a periodic job, cron \"0 2 * * *\" (config/schedule.yml)",
      "[ok] schedule entry \"cleanup\" (CleanupJob): disabled, not loaded (config/schedule.yml)",
      "[change] schedule entry \"dated_export\" (ExportJob) (config/schedule.yml): date_as_argument: has no counterpart",
      "[ok] schedule entry \"ping\" (PingJob): a periodic job, cron \"*/5 * * * *\" (config/sidekiq.yml)",
      "[change] schedule entry \"slow_sync\" (SyncJob) (config/sidekiq.yml): every: \"45m\" does not divide",
      "[change] schedule entry \"launch\" (LaunchJob) (config/sidekiq.yml): at: is a one-time job",
      "[unsupported] sidekiq-unique-jobs lock: :until_expired / :while_executing / :until_and_while_executing: 1 use (app/jobs/erp_job.rb:6)",
      "[unsupported] sidekiq-unique-jobs on_conflict: :reject / :replace / :reschedule (or per client/server): 1 use (app/jobs/erp_job.rb:6)",
      "[ok] Sidekiq::Limiter (Deckhand's rate limiters): 1 use (app/jobs/erp_job.rb:8)"
    ].each { |line| assert_includes out, line }
    assert_equal 2, out[/^Unsupported \((\d+)\):/, 1].to_i, out
  end

  def test_usage_and_a_wrong_directory
    assert_includes deckhand_run("migrate").stdout, "Usage: deckhand migrate --check [APP_ROOT]"
    cli = deckhand_run("migrate", "--check", File.join(LEGACY, "nowhere"))
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, "is not a directory; give the application's root"
  end
end
