# frozen_string_literal: true

# Loaded with -r before a script written for the sidekiq gem (bench/sidekiqload.rb):
# the bundle's own sidekiq gem (the :compat group) leaves the load path, and
# drop-in mode answers every `require "sidekiq..."`, as in an application
# whose Gemfile has `gem "deckhand", require: "deckhand/sidekiq"` in place of sidekiq.
require "bundler/setup"
$LOAD_PATH.reject! { |path| path.include?("/gems/sidekiq-") }
require "deckhand/sidekiq"
