# frozen_string_literal: true

require "test_helper"
require "deckhand/testing"
require "deckhand/testing/assertions"
require "deckhand/testing/enqueued_matcher"

# The suite shares one process: requiring deckhand/testing turned the fake mode
# on for all of it, so put Redis back and let each test pick its mode.
Deckhand::Testing.disable!

module Deckhand
  module TestingHelpers
    def setup
      super
      Deckhand::Testing.clear_all
      Deckhand::Testing.disable!
    end

    def teardown
      Deckhand::Testing.disable!
      Deckhand::Testing.clear_all
      super
    end
  end
end

class WelcomeEmailJob
  include Deckhand::Job

  deckhand_options queue: "mailers"

  def perform(user_id, options = {})
    Deckhand::TestJobs.record([jid, user_id, options])
  end
end

# Pushes one more job per level, so drain must run what jobs push.
class CascadeJob
  include Deckhand::Job

  def perform(level)
    Deckhand::TestJobs.record([jid, level])
    CascadeJob.perform_async(level - 1) if level.positive?
  end
end
