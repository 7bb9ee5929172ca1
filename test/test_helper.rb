# frozen_string_literal: true

# Every test file requires this and nothing else from test/, so each file runs
# on its own: `bundle exec ruby -Itest test/unit/payload_test.rb`.

$VERBOSE = true
Warning[:deprecated] = true

# Warnings are errors, for our own code (a gem's warnings are its authors' to fix).
module Deckhand
  module WarningsAreErrors
    ROOT = File.expand_path("..", __dir__)

    # vendor/ holds MRI's bundle, tmp/jruby JRuby's (bin/jruby).
    FOREIGN = [File.join(ROOT, "vendor"), File.join(ROOT, "tmp")].freeze

    def warn(message, ...)
      own = message.start_with?(ROOT) && !message.start_with?(*FOREIGN)
      raise "warning from our code: #{message}" if own
      super
    end
  end
end
Warning.singleton_class.prepend(Deckhand::WarningsAreErrors)

$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "minitest/autorun"
require "deckhand"
require "deckhand/server"
require "deckhand/dev_redis"
require_relative "support/redis_harness"
require_relative "support/helpers"
require_relative "support/jobs"
require_relative "support/folder_progress"

Minitest::Test.include(Deckhand::TestHelpers)
Minitest.extensions << Deckhand::FolderProgress
