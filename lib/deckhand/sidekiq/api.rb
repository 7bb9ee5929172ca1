# frozen_string_literal: true

require "deckhand/api"
require_relative "api/api_utils"
require_relative "api/job_record"
require_relative "api/queue"
require_relative "api/sorted_set"
require_relative "api/process_set"
require_relative "api/work_set"
require_relative "api/stats"
require_relative "api/iterable_job_query"
require_relative "api/profile_set"
# Sidekiq's api.rb loads its metrics query too.
require_relative "metrics/query"

# `require "sidekiq/api"` in drop-in mode: Sidekiq's data API classes
# (Sidekiq::Queue, RetrySet, ScheduledSet, DeadSet, ProcessSet, WorkSet, Stats), read
# and acted on through Deckhand::API. See the files in api/.

# Sidekiq 8's load hooks for the data API (Sidekiq.loader.on_load(:api)).
Sidekiq.loader.run_load_hooks(:api)
