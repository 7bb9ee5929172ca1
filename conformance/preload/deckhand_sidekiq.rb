# frozen_string_literal: true

# Loaded (-r) before each of Sidekiq's test files in drop-in mode: the
# bundle (without the sidekiq gem: bin/conformance leaves out its group), then
# drop-in mode, as an application's `gem "deckhand", require: "deckhand/sidekiq"`.
require "bundler/setup"
require "deckhand/sidekiq"
# Rack 3 keeps Rack::Session in the rack-session gem, which web_test.rb uses
# and Sidekiq's own bundle loads through Rails.
require "rack/session"
# Stand-ins for gems the bundle lacks, searched after every real gem.
$LOAD_PATH.push(File.join(__dir__, "fallback"))
# What the file would find had the suite run before it in the same Ruby.
require_relative "sidekiq_suite"
Conformance::SidekiqSuite.install
