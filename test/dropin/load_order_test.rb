# frozen_string_literal: true

require_relative "dropin_helper"
require "deckhand/sidekiq/refusal"

# Drop-in mode must answer `require "sidekiq"` first. When the real gem got
# in before it (a plugin that depends on sidekiq, loaded earlier in the
# Gemfile), the refusal says exactly what to change; a scheduler plugin
# required in drop-in mode stops the boot with what to do, not a NameError
# from inside Sidekiq's files.
class DropInLoadOrderTest < Minitest::Test
  include Deckhand::DropInHelpers

  def test_the_real_gem_loaded_first_is_refused_with_the_fix
    sidekiq = Gem.loaded_specs.fetch("sidekiq")
    out, status = dropin_ruby(*sidekiq_gem_paths.map { |path| "-I#{path}" }, "-e", 'require "sidekiq"; require "deckhand/sidekiq"', preload: false)
    refute status.success?
    assert_includes out, "deckhand/sidekiq (drop-in mode) must answer `require \"sidekiq\"`, but the sidekiq gem #{sidekiq.version} is already loaded"
    assert_includes out, "require \"deckhand/sidekiq\" before anything requires \"sidekiq\""
  end

  def test_plugins_that_brought_the_gem_are_named_with_what_to_do_for_each
    message = Deckhand::DropInRefusal.sidekiq_loaded("7.3.10", specs: [spec("sidekiq", "7.3.10"), spec("sidekiq-cron", "2.0.1", "sidekiq"),
      spec("sidekiq-status", "3.0.3", "sidekiq"), spec("rack", "3.1.0")], direct: %w[deckhand sidekiq-cron sidekiq-status])
    assert_includes message, "the bundle holds it for sidekiq-cron 2.0.1, sidekiq-status 3.0.3"
    assert_includes message, "remove sidekiq-cron 2.0.1: Deckhand reads its schedule into periodic jobs"
    assert_includes message, "move `gem \"deckhand\", require: \"deckhand/sidekiq\"` above sidekiq-status 3.0.3 in the Gemfile"
    refute_includes message, "remove `gem \"sidekiq\"`"
    direct = Deckhand::DropInRefusal.sidekiq_loaded("7.3.10", specs: [spec("sidekiq", "7.3.10")], direct: %w[sidekiq deckhand])
    assert_includes direct, "To switch: remove `gem \"sidekiq\"` from the Gemfile."
  end

  def test_a_scheduler_plugin_in_drop_in_mode_says_what_to_do
    %w[sidekiq-cron sidekiq/cron sidekiq-scheduler].each do |feature|
      out, status = dropin_ruby("-e", "require #{feature.inspect}")
      refute status.success?, feature
      name = feature.include?("cron") ? "sidekiq-cron" : "sidekiq-scheduler"
      assert_includes out, "#{name} does not run in drop-in mode (it is built on Sidekiq's internals): remove `gem \"#{name}\"`", feature
    end
  end

  # rspec-sidekiq's order: sidekiq (drop-in mode) first, Active Job after,
  # then `queue_adapter = :sidekiq`; with the sidekiq gem's own files on the
  # load path behind drop-in's, as in a bundle that keeps the gem for a plugin.
  def test_active_job_loaded_after_drop_in_mode_gets_deckhands_adapter_and_sidekiqs_constants
    out, status = dropin_ruby(*sidekiq_gem_paths.map { |path| "-I#{path}" }, "-e", <<~RUBY)
      require "sidekiq/testing"
      require "active_job"
      ActiveJob::Base.logger = Logger.new(File::NULL)
      ActiveJob::Base.queue_adapter = :sidekiq
      class OptionedJob < ActiveJob::Base
        sidekiq_options retry: 2
        def perform = nil
      end
      Sidekiq::Testing.fake! { OptionedJob.perform_later }
      job = Sidekiq::Worker.jobs.first
      puts [ActiveJob::Base.queue_adapter.class.superclass, ActiveJob::Base.queue_adapter_name, job["class"], job["retry"],
        Sidekiq::ActiveJob::Wrapper.equal?(ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper),
        Sidekiq::ActiveJob::Wrapper.jobs.size, ActiveJob::Base.queue_adapter.stopping?(OptionedJob.new)].inspect
    RUBY
    assert status.success?, out
    written = sidekiq_8_child? ? "Sidekiq::ActiveJob::Wrapper" : "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper"
    assert_equal %([ActiveJob::QueueAdapters::DeckhandAdapter, "sidekiq", "#{written}", 2, true, 1, false]), out.lines.last.chomp
  end

  # A spec or initializer naming Sidekiq's wrapper before Active Job is set up.
  def test_sidekiq_active_job_wrapper_named_first_loads_active_job_on_deckhand
    out, status = dropin_ruby("-e", <<~RUBY)
      wrapper = Sidekiq::ActiveJob::Wrapper
      puts [wrapper.ancestors.include?(Deckhand::Job), ActiveJob::Base.respond_to?(:sidekiq_options),
        ActiveJob::QueueAdapters.lookup(:sidekiq).equal?(ActiveJob::QueueAdapters::SidekiqAdapter)].inspect
    RUBY
    assert status.success?, out
    assert_equal "[true, true, true]", out.lines.last.chomp
  end

  private

  def sidekiq_gem_paths
    sidekiq = Gem.loaded_specs.fetch("sidekiq")
    [sidekiq, *sidekiq.runtime_dependencies.map { |dep| Gem.loaded_specs[dep.name] }].compact.flat_map(&:full_require_paths)
  end

  def spec(name, version, *dependencies)
    Gem::Specification.new do |s|
      s.name = name
      s.version = version
      dependencies.each { |dependency| s.add_runtime_dependency(dependency) }
    end
  end
end
