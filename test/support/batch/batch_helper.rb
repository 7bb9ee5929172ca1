# frozen_string_literal: true

require "test_helper"
require_relative "apps/batch_app"

module Deckhand
  # What batch tests share: batches installed on the test's config, a server
  # tuned to pick retries up at once, and readers for what the app recorded.
  module BatchHelpers
    def setup
      super
      Deckhand::Batch.install(Deckhand.config)
    end

    # A config for an in-process server: retries due at once are moved within
    # a few milliseconds.
    def server_config(**settings)
      config = new_config(concurrency: 4, scheduler_interval: 0.02, **settings)
      Deckhand::Batch.install(config)
      Deckhand.config = config
    end

    def callbacks(event = nil)
      list = BatchApp.callbacks
      event ? list.select { |entry| entry["event"] == event } : list
    end

    def runs = BatchApp.runs

    def batch_keys = redis.call("KEYS", "deckhand:batch*").sort

    def wait_for_callbacks(count, event: nil)
      wait_for(message: "#{count} #{event || "batch"} callbacks") do
        list = callbacks(event)
        list if list.size >= count
      end
    end

    # Nothing left to run anywhere: a callback pushed twice would be here.
    def assert_all_ran
      assert_equal 0, redis.call("LLEN", "queue:default"), "jobs left in queue:default"
      assert_equal 0, redis.call("ZCARD", "retry"), "jobs left in the retry set"
    end
  end
end
