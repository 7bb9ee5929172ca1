# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "deckhand/cli/config_file"
require "deckhand/periodic/sidekiq_schedule"

# sidekiq-cron and sidekiq-scheduler schedules read into periodic entries.
class SidekiqScheduleTest < Minitest::Test
  include Deckhand::TestHelpers

  SIDEKIQ_CRON = <<~YAML
    nightly_report:
      cron: "0 2 * * * Europe/Paris"
      class: "NightlyReportJob"
      queue: reports
      args: [daily, 7]
      description: "The nightly report"
      retry: 2
    cleanup:
      cron: "*/10 * * * *"
      class: CleanupJob
      args: {older_than: 30}
      status: disabled
    sync:
      cron: "every 5 minutes"
      class: SyncJob
      active_job: true
  YAML

  def write(text)
    dir = Dir.mktmpdir("deckhand-schedule")
    @dirs = (@dirs || []) << dir
    File.join(dir, "schedule.yml").tap { |path| File.write(path, text) }
  end

  def teardown = @dirs&.each { |dir| FileUtils.rm_rf(dir) }

  def test_a_sidekiq_cron_file_registers_its_enabled_entries
    config = new_config(periodic: {"sidekiq_schedule" => write(SIDEKIQ_CRON)})
    assert_equal %w[nightly_report sync], config.periodic.entries.map(&:name), "the disabled entry is skipped"
    nightly = config.periodic["nightly_report"]
    assert_equal ["NightlyReportJob", "Europe/Paris", "reports", ["daily", 7], {"retry" => 2}],
      [nightly.klass, nightly.timezone, nightly.queue, nightly.args, nightly.options]
    assert_equal Time.utc(2026, 7, 2, 0).to_i, nightly.timing.next_after(Time.utc(2026, 7, 1, 12).to_i), "2am in Paris"
    assert_equal "SyncJob", config.periodic["sync"].klass
  end

  def test_sidekiq_crons_list_form_and_hash_args
    items = Deckhand::Periodic::SidekiqSchedule.entries([{"name" => "a", "cron" => "0 * * * *", "class" => "A", "args" => {"x" => 1}}])
    assert_equal [["a", "0 * * * *", "A", [{"x" => 1}], nil]], items.map { |i| [i.name, i.cron, i.klass, i.args, i.problem] }
  end

  def test_sidekiq_scheduler_in_sidekiq_yml_is_read_by_the_config_file
    path = write(<<~YAML)
      :concurrency: 3
      :scheduler:
        :schedule:
          ping:
            :every: "5m"
            :class: PingJob
          hourly:
            every: 1h
            class: HourlyJob
          daily:
            cron: "0 4 * * *"
            enabled: false
          CleanupJob:
            every: 30s
    YAML
    settings = Deckhand::CLI::ConfigFile.load(path, "development")
    config = new_config(**settings)
    assert_equal 3, config.concurrency
    assert_equal [%w[ping */5 PingJob], %w[hourly 0 HourlyJob], %w[CleanupJob */30 CleanupJob]],
      config.periodic.entries.map { |entry| [entry.name, entry.cron.split.first, entry.klass] }, "the class defaults to the name"
    assert_equal ["*/5 * * * *", "0 * * * *", "*/30 * * * * *"], config.periodic.entries.map(&:cron)
  end

  def test_a_disabled_scheduler_loads_nothing
    path = write(":scheduler:\n  :enabled: false\n  :schedule:\n    ping: {every: 5m, class: PingJob}\n")
    refute new_config(**Deckhand::CLI::ConfigFile.load(path, "development")).periodic.any?
  end

  def test_entries_that_do_not_map_are_named_with_their_fix_and_nothing_is_registered
    path = write(<<~YAML)
      fine: {cron: "0 2 * * *", class: FineJob}
      odd: {every: 45m, class: OddJob}
      once: {at: "3001/01/01 10:00", class: OnceJob}
      later: {in: 1h, class: LaterJob}
      gap: {interval: 5m, class: GapJob}
      dated: {cron: "0 3 * * *", class: DatedJob, date_as_argument: true}
      both: {cron: "0 3 * * *", every: 1h, class: BothJob}
    YAML
    config = new_config
    error = assert_raises(Deckhand::ConfigError) { config.periodic.load_sidekiq_schedule(path) }
    [
      "entry \"odd\": every: \"45m\" does not divide the minute, hour or day evenly: write it as a cron with cron:",
      "entry \"once\": at: is a one-time job, not a periodic one: push it with perform_at / perform_in",
      "entry \"later\": in: is a one-time job",
      "entry \"gap\": interval: runs at a fixed gap",
      "entry \"dated\": date_as_argument: has no counterpart",
      "entry \"both\": needs one of cron: or every: (it has cron and every)"
    ].each { |part| assert_includes error.message, part }
    refute_includes error.message, "\"fine\""
    refute config.periodic.any?, "nothing registered"
    bad_cron = assert_raises(Deckhand::ConfigError) { config.periodic.load_sidekiq_schedule({"x" => {"cron" => "0 25 * * *", "class" => "X"}}) }
    assert_includes bad_cron.message, "is not a cron"
    assert_includes assert_raises(Deckhand::ConfigError) { config.periodic.load_sidekiq_schedule("/nowhere/schedule.yml") }.message, "does not exist"
  end
end
