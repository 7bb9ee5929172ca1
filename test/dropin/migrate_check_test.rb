# frozen_string_literal: true

require_relative "dropin_helper"
require_relative "../e2e/e2e_helper"

# `deckhand migrate --check`, the real command, on the sample Sidekiq app and
# on an app using plugins Deckhand does not support.
class MigrateCheckTest < Minitest::Test
  include Deckhand::DropInHelpers
  include Deckhand::E2EHelpers

  LEGACY = File.expand_path("legacy_app", __dir__)

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
    assert_equal 6, unsupported.size, out
    assert_includes out, "[unsupported] gem sidekiq-throttled 1.4.0 (Gemfile.lock): it replaces Sidekiq's fetch"
    assert_includes out, "[unsupported] gem sidekiq-heroku-autoscale 0.1.0 (Gemfile.lock): a Sidekiq plugin the check does not know"
    assert_includes out, "[unsupported] Sidekiq::Limiter (Enterprise rate limiters): 1 use (app/workers/nightly_worker.rb:10)"
    assert_includes out, "[unsupported] Sidekiq::Client.via (Redis sharding): 1 use (app/workers/nightly_worker.rb:13)"
    assert_includes out, "[unsupported] config.on(:heartbeat/:beat/:leader): 1 use (config/initializer.rb:5)"
    assert_includes out, "[change] gem sidekiq-cron 2.0.1 (Gemfile.lock): move the schedule to Deckhand's periodic jobs"
    assert_includes out, "[change] a schedule in the config file (schedule) (config/sidekiq.yml)"
    assert_includes out, "[change] settings Deckhand does not have: pidfile (config/sidekiq.yml): remove them"
    assert_includes out, "[change] gem sidekiq-pro 7.3.4"
    assert_includes out, "Unsupported APIs found"
  end

  def test_usage_and_a_wrong_directory
    assert_includes deckhand_run("migrate").stdout, "Usage: deckhand migrate --check [APP_ROOT]"
    cli = deckhand_run("migrate", "--check", File.join(LEGACY, "nowhere"))
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, "is not a directory; give the application's root"
  end
end
