# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "deckhand/cli/config_choice" # not deckhand/cli: loading the command marks the process a server for the Railtie

# Which files `deckhand` reads: -C config/sidekiq.yml reads config/deckhand.yml too.
class ConfigChoiceTest < Minitest::Test
  def in_app(files)
    Dir.mktmpdir do |dir|
      FileUtils.mkdir_p(File.join(dir, "config"))
      files.each { |path, text| File.write(File.join(dir, path), text) }
      Dir.chdir(dir) { yield }
    end
  end

  def test_the_periodic_sections_of_both_files_add_up
    in_app("config/sidekiq.yml" => ":scheduler:\n  :schedule:\n    hourly: {cron: '0 * * * *', class: HourlyJob}\n",
      "config/deckhand.yml" => "periodic:\n  timezone: UTC\n  jobs:\n    nightly: {cron: '0 2 * * *', class: NightlyJob}\n") do
      choice = Deckhand::CLI::ConfigChoice.new("config/sidekiq.yml", "production")
      periodic = choice.settings[:periodic]
      assert_equal ["jobs", "sidekiq_schedule", "timezone"], periodic.keys.sort
      assert_equal ["nightly"], periodic["jobs"].keys
      assert_equal [:info], choice.notes.map(&:first)
    end
  end

  def test_two_sidekiq_schedules_are_refused_by_name
    in_app("config/sidekiq.yml" => ":schedule:\n  hourly: {cron: '0 * * * *', class: HourlyJob}\n",
      "config/deckhand.yml" => "periodic:\n  sidekiq_schedule: config/schedule.yml\n") do
      error = assert_raises(Deckhand::ConfigError) { Deckhand::CLI::ConfigChoice.new("config/sidekiq.yml", "production").settings }
      assert_includes error.message, "periodic sidekiq_schedule is given in config/deckhand.yml and in config/sidekiq.yml"
    end
  end

  def test_without_c_or_with_deckhand_yml_itself_one_file_is_read
    in_app("config/deckhand.yml" => "concurrency: 4\n") do
      assert_equal({concurrency: 4}, Deckhand::CLI::ConfigChoice.new(nil, "production").settings)
      choice = Deckhand::CLI::ConfigChoice.new("./config/deckhand.yml", "production")
      assert_equal({concurrency: 4}, choice.settings)
      assert_empty choice.notes
    end
  end
end
