# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"
require "tmpdir"

class PeriodicConfigTest < Minitest::Test
  def test_register_with_the_block
    config = new_config
    config.periodic do |cron|
      cron.timezone = "Europe/Paris"
      cron.grace = 60
      cron.register("0 2 * * *", "NightlyReportJob", queue: "reports", args: ["daily"])
      cron.register("*/15 * * * * *", "HeartbeatPingJob", tz: "UTC", name: "ping")
      cron.register("every day at 9am Europe/Paris", "DigestJob")
    end
    nightly, ping, digest = config.periodic.entries
    assert_equal ["NightlyReportJob", "0 2 * * *", "Europe/Paris", "reports", ["daily"]],
      [nightly.name, nightly.cron, nightly.timezone, nightly.queue, nightly.args]
    assert_equal ["ping", "*/15 * * * * *", "UTC", nil], [ping.name, ping.cron, ping.timezone, ping.queue]
    assert_equal ["every day at 9am Europe/Paris", "Europe/Paris"], [digest.cron, digest.timezone]
    assert_equal Time.utc(2026, 7, 1, 7).to_i, digest.timing.next_after(Time.utc(2026, 7, 1).to_i)
    assert_equal 60, config.periodic.grace
  end

  def test_job_options_of_an_entry_are_checked_and_stored_only_when_given
    periodic = new_config.periodic
    periodic.register("0 2 * * *", "NightlyReportJob", options: {retry: 2, expires_in: 60})
    periodic.register("0 3 * * *", "PlainJob")
    assert_equal({"retry" => 2, "expires_in" => 60}, periodic["NightlyReportJob"].to_h["options"])
    refute periodic["PlainJob"].to_h.key?("options"), "an entry without options is stored as before"
    assert_includes assert_raises(Deckhand::ConfigError) { periodic.register("0 4 * * *", "A", options: {retry: "x"}) }.message, "retry"
    assert_includes assert_raises(Deckhand::ConfigError) { periodic.register("0 4 * * *", "B", options: {"class" => "C"}) }.message, "class:"
  end

  def test_config_file_settings_add_entries_and_apply_twice_the_same
    settings = {"timezone" => "UTC", "grace" => 30,
                "jobs" => {"nightly" => {"cron" => "0 2 * * *", "class" => "NightlyReportJob", "args" => [1]}}}
    config = new_config(periodic: settings)
    config.periodic = settings # the CLI applies the file again after the application loaded
    assert_equal ["nightly"], config.periodic.entries.map(&:name)
    assert_equal [[1], "UTC", 30], [config.periodic["nightly"].args, config.periodic["nightly"].timezone, config.periodic.grace]
  end

  def test_bad_entries_are_refused_where_they_are_registered_naming_the_entry
    periodic = new_config.periodic
    error = assert_raises(Deckhand::ConfigError) { periodic.register("every blue moon", "MoonJob") }
    assert_includes error.message, "\"MoonJob\""
    assert_includes error.message, "is not a cron"
    error = assert_raises(Deckhand::ConfigError) { periodic.register("0 2 * * *", "NightJob", tz: "Mars/Olympus") }
    assert_includes error.message, "unknown time zone \"Mars/Olympus\""
    error = assert_raises(Deckhand::ConfigError) { periodic.register("0 2 * * * Europe/Paris", "NightJob", tz: "UTC") }
    assert_includes error.message, "give one of them"
    error = assert_raises(Deckhand::ConfigError) { periodic.register("0 2 * * *", "NightJob", args: [Object.new]) }
    assert_includes error.message, "periodic entry \"NightJob\""
    assert_raises(Deckhand::ConfigError) { periodic.register("0 2 * * *", "NightJob", args: "x") }
    assert_raises(Deckhand::ConfigError) { periodic.grace = 0 }
    error = assert_raises(Deckhand::ConfigError) { new_config(periodic: {"jobs" => {"x" => {"cron" => "0 2 * * *"}}}) }
    assert_includes error.message, "needs class:"
    error = assert_raises(Deckhand::ConfigError) { new_config(periodic: {"jobs" => {"x" => {"cron" => "0 2 * * *", "class" => "X", "qeue" => "a"}}}) }
    assert_includes error.message, "unknown key \"qeue\""
  end

  def test_frozen_after_boot
    config = new_config.freeze!
    error = assert_raises(Deckhand::ConfigError) { config.periodic { |cron| cron.register("* * * * *", "X") } }
    assert_includes error.message, "frozen"
  end

  def test_fugit_is_loaded_only_when_periodic_jobs_are_configured
    script = <<~RUBY
      require "deckhand"
      require "deckhand/server"
      Deckhand::Config.new(concurrency: 2)
      print defined?(Fugit).inspect, " "
      Deckhand::Config.new.periodic { |cron| cron.register("* * * * *", "X") }
      print defined?(Fugit).inspect
    RUBY
    out, status = Open3.capture2(RbConfig.ruby, "-I", File.expand_path("../../../lib", __dir__), "-e", script)
    assert status.success?
    assert_equal "nil \"constant\"", out
  end

  def test_without_fugit_the_error_says_what_to_add
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "fugit.rb"), "raise LoadError, 'cannot load such file -- fugit'\n")
      script = <<~RUBY
        require "deckhand"
        begin
          Deckhand::Config.new.periodic { |cron| cron.register("* * * * *", "X") }
        rescue Deckhand::ConfigError => e
          print e.message
        end
      RUBY
      out, status = Open3.capture2(RbConfig.ruby, "-I", dir, "-I", File.expand_path("../../../lib", __dir__), "-e", script)
      assert status.success?
      assert_includes out, "periodic jobs need the fugit gem: add `gem \"fugit\"` to your Gemfile"
    end
  end

  def test_a_name_registered_twice_differently_is_refused
    periodic = new_config.periodic
    periodic.register("0 2 * * *", "ReportJob")
    periodic.register("0 2 * * *", "ReportJob") # the same again: fine
    error = assert_raises(Deckhand::ConfigError) { periodic.register("0 3 * * *", "ReportJob") }
    assert_includes error.message, "periodic entry \"ReportJob\" is registered twice"
    assert_includes error.message, "give each its own name:"
    periodic.register("0 3 * * *", "ReportJob", name: "late-report")
    assert_equal ["ReportJob", "late-report"], periodic.entries.map(&:name)
  end
end
