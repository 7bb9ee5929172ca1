# frozen_string_literal: true

# Loaded (-r) before each of a plugin's test files for the baseline: the
# plugins' bundle, sidekiq gem included (conformance/plugins/Gemfile), and
# Active Support, as a Rails application has it before its gems load.
require "bundler/setup"
require "active_support"
