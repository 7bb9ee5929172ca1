# frozen_string_literal: true

# Loaded (-r) before each of Sidekiq's test files for the baseline: the bundle,
# sidekiq gem included, and the gem itself, as Sidekiq's own Gemfile's
# Bundler.require would load it.
require "bundler/setup"
require "sidekiq"
# Rack 3 keeps Rack::Session in the rack-session gem, which web_test.rb uses
# and Sidekiq's own bundle loads through Rails.
require "rack/session"
# Stand-ins for gems the bundle lacks, searched after every real gem.
$LOAD_PATH.push(File.join(__dir__, "fallback"))
# What the file would find had the suite run before it in the same Ruby.
require_relative "sidekiq_suite"
Conformance::SidekiqSuite.install
