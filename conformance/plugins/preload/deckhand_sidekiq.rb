# frozen_string_literal: true

# Loaded (-r) before each of a plugin's test files in drop-in mode: the
# plugins' bundle without the sidekiq gem (the runner leaves out its
# group), Active Support, as a Rails application has it before its gems
# load, then drop-in mode, as an application's Gemfile lists
# `gem "deckhand", require: "deckhand/sidekiq"` above its Sidekiq plugins.
require "bundler/setup"
require "active_support"
$LOAD_PATH.unshift(File.expand_path("../../../lib", __dir__))
require "deckhand/sidekiq"
