# frozen_string_literal: true

require_relative "dropin_helper"
require "deckhand/sidekiq/version"

# Drop-in mode stands in for Sidekiq 8.1 or 7.3: how an application
# chooses (Deckhand::DropIn::Version.choose here; the environment and the
# require in child processes without the sidekiq gem), and each behaviour
# the two versions disagree on, asserted in a child of each version
# (inside/test_sidekiq_versions.rb).
class DropInSidekiqVersionsTest < Minitest::Test
  include Deckhand::DropInHelpers

  Version = Deckhand::DropIn::Version

  def test_the_default_is_8_from_ruby_3_2_and_7_before
    assert_equal 8, Version.choose(env: {}, ruby: "3.2.0").major
    assert_equal 8, Version.choose(env: {}, ruby: "3.4.1").major
    assert_equal 7, Version.choose(env: {}, ruby: "3.1.2").major
    assert_equal ["8.1.7", "7.3.0"], [Version.new(8).sidekiq_version, Version.new(7).sidekiq_version]
  end

  def test_the_environment_or_the_require_chooses_and_they_must_agree
    assert_equal 7, Version.choose(env: {"DECKHAND_SIDEKIQ" => "7"}, ruby: "3.3.8").major
    assert_equal 8, Version.choose(env: {"DECKHAND_SIDEKIQ" => " 8.1 "}, ruby: "3.1.2").major
    assert_equal 7, Version.choose(7, env: {}, ruby: "3.3.8").major
    assert_equal 7, Version.choose(7, env: {"DECKHAND_SIDEKIQ" => "7"}).major
    error = assert_raises(Deckhand::ConfigError) { Version.choose(7, env: {"DECKHAND_SIDEKIQ" => "8"}) }
    assert_match(/require "deckhand\/sidekiq\/7"\) and Sidekiq 8 \(DECKHAND_SIDEKIQ=8\): keep one/, error.message)
    error = assert_raises(Deckhand::ConfigError) { Version.choose(env: {"DECKHAND_SIDEKIQ" => "6"}) }
    assert_match(/DECKHAND_SIDEKIQ=6 names no Sidekiq version .*set it to 7 \(Sidekiq 7.3\) or 8 \(Sidekiq 8.1\)/, error.message)
    assert_raises(Deckhand::ConfigError) { Version.choose(env: {"DECKHAND_SIDEKIQ" => "seven"}) }
    assert_equal 8, Version.choose(env: {"DECKHAND_SIDEKIQ" => ""}, ruby: "3.3.0").major, "an empty value is no choice"
  end

  def test_a_child_reports_the_version_it_was_given
    default = (Gem::Version.new(RUBY_VERSION) >= Gem::Version.new("3.2")) ? "8.1.7" : "7.3.0"
    assert_equal default, version_in_child("DECKHAND_SIDEKIQ" => nil)
    assert_equal "7.3.0", version_in_child("DECKHAND_SIDEKIQ" => "7")
    assert_equal "8.1.7", version_in_child("DECKHAND_SIDEKIQ" => "8")
  end

  def test_require_deckhand_sidekiq_7_or_8_chooses_before_drop_in_mode_loads
    script = 'require "deckhand/sidekiq/%s"; require "sidekiq"; require "deckhand/sidekiq/%s"; print Sidekiq::VERSION'
    unset = {"DECKHAND_SIDEKIQ" => nil}
    out, status = dropin_ruby("-e", format(script, 7, 7), preload: false, env: unset)
    assert status.success?, out
    assert_equal "7.3.0", out
    out, status = dropin_ruby("-e", format(script, 8, 8), preload: false, env: unset)
    assert status.success?, out
    assert_equal "8.1.7", out
  end

  def test_asking_for_the_other_version_once_drop_in_mode_loaded_is_refused
    out, status = dropin_ruby("-e", 'require "deckhand/sidekiq/8"; require "deckhand/sidekiq/7"', preload: false, env: {"DECKHAND_SIDEKIQ" => nil})
    refute status.success?
    assert_match(/drop-in mode already loaded as Sidekiq 8.1.7; require "deckhand\/sidekiq\/7" before anything requires/, out)
    out, status = dropin_ruby("-e", 'require "deckhand/sidekiq/7"', preload: false, env: {"DECKHAND_SIDEKIQ" => "8"})
    refute status.success?
    assert_match(/keep one of the two/, out)
  end

  def test_sidekiq_8_behaviours
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_versions.rb", __dir__), env: {"DECKHAND_SIDEKIQ" => "8"})
  end

  def test_sidekiq_7_behaviours
    assert_dropin_tests_pass(File.expand_path("inside/test_sidekiq_versions.rb", __dir__), env: {"DECKHAND_SIDEKIQ" => "7"})
  end

  private

  def version_in_child(env)
    out, status = dropin_ruby("-e", "print Sidekiq::VERSION", env: env)
    assert status.success?, out
    out
  end
end
