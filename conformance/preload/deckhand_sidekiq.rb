# frozen_string_literal: true

# Loaded (-r) before each of Sidekiq's test files in drop-in mode: the
# bundle (without the sidekiq gem: bin/conformance leaves out its group), then
# drop-in mode, as an application's `gem "deckhand", require: "deckhand/sidekiq"`.
require "bundler/setup"
# Nothing of the sidekiq gem may load. Deckhand's Gemfile keeps it in a group
# bin/conformance leaves out; a bundle that holds it outside any group
# (another Ruby's) has it set up, so its folder leaves the load path.
$LOAD_PATH.reject! { |dir| File.basename(File.dirname(dir)).match?(/\Asidekiq-\d/) }
require "deckhand/sidekiq"
# Rack 3 keeps Rack::Session in the rack-session gem, which web_test.rb uses
# and Sidekiq's own bundle loads through Rails.
require "rack/session"
# Stand-ins for gems the bundle lacks, searched after every real gem.
$LOAD_PATH.push(File.join(__dir__, "fallback"))
# What the file would find had the suite run before it in the same Ruby.
require_relative "sidekiq_suite"
Conformance::SidekiqSuite.install
