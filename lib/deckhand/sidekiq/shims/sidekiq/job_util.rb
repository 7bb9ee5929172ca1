# frozen_string_literal: true

# `require "sidekiq/job_util"` in drop-in mode: Sidekiq::JobUtil.
require "deckhand/sidekiq"
require "deckhand/sidekiq/job_util"
