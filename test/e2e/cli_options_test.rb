# frozen_string_literal: true

require_relative "e2e_helper"

# The command line itself: help, version, refusing bad input, and the config file.
class CliOptionsTest < Minitest::Test
  include Deckhand::E2EHelpers

  # Every option the CLI documents, in short and long form.
  OPTIONS = %w[-r --require -c --concurrency -q --queue -g --capsule -t --timeout -C --config
    -e --environment --log-format -v --verbose -V --version -h --help].freeze

  def test_help_lists_every_option
    cli = deckhand_run("-h")
    assert_equal 0, cli.status.exitstatus
    assert_match(/^Usage: deckhand/, cli.stdout)
    OPTIONS.each do |option|
      assert_match(/^\s+(-\w, )?#{Regexp.escape(option)}[ ,]/, cli.stdout, "-h does not list #{option}")
    end
  end

  def test_version
    cli = deckhand_run("-V")
    assert_equal 0, cli.status.exitstatus
    assert_equal "deckhand #{Deckhand::VERSION}\n", cli.stdout
  end

  def test_unknown_option_exits_1_naming_it
    cli = deckhand_run("--colour")
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, "--colour"
    assert_includes cli.stderr, "deckhand --help"
  end

  # `deckhand bench` was a subcommand once; now it, like any word that is not
  # an option, is refused instead of booting a server.
  def test_a_stray_argument_exits_1_naming_it
    cli = deckhand_run("bench")
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, %(unexpected argument "bench")
    assert_includes cli.stderr, "deckhand --help"
  end

  def test_zero_concurrency_exits_1_naming_the_setting
    cli = deckhand_run("-c", "0")
    assert_equal 1, cli.status.exitstatus
    assert_match(/concurrency must be .* got 0/, cli.stderr)
  end

  def test_malformed_capsule_exits_1_showing_the_form
    cli = deckhand_run("-g", "cpu:one:reports")
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, "cpu:one:reports"
    assert_includes cli.stderr, "THREADS must be a whole number"
  end

  def test_unreachable_redis_fails_fast_naming_the_url_and_the_fix
    url = "redis://127.0.0.1:#{Deckhand::DevRedis.free_port}/0"
    cli = deckhand_run(env: {"REDIS_URL" => url}, timeout: 10)
    refute_equal 0, cli.status.exitstatus
    assert_includes cli.stderr, url
    assert_includes cli.stderr, "is redis-server running? Set REDIS_URL"
  end

  def test_config_file_with_erb_and_an_environment_section
    path = config_file(<<~YAML)
      concurrency: <%= 1 + 1 %>
      queues: [default]
      production:
        concurrency: <%= ENV.fetch("E2E_THREADS") %>
    YAML
    production = boot("-C", path, "-e", "production", env: {"E2E_THREADS" => "7"})
    development = boot("-C", path, "-e", "development", env: {"E2E_THREADS" => "7"})
    assert_equal 7, process_info(production.identity)["concurrency"]
    assert_equal 2, process_info(development.identity)["concurrency"]
  end

  def test_a_mistyped_config_file_key_exits_1_suggesting_the_setting
    cli = deckhand_run("-C", config_file("concurency: 3\nhung_after: 60\n"))
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, %(unknown setting "concurency" (did you mean concurrency?))
    refute_includes cli.stderr, %(unknown setting "hung_after"), "every configuration setting is a known key of the file"
  end
end
