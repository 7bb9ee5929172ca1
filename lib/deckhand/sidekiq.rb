# frozen_string_literal: true

# Drop-in mode: an application written against Sidekiq's API runs on Deckhand
# without a code change. In the Gemfile, in place of the sidekiq gem:
#
#   gem "deckhand", require: "deckhand/sidekiq"
#
# `Sidekiq::Job`, `Sidekiq::Client`, `Sidekiq.configure_server`,
# `Sidekiq::Testing`, the API classes, `Sidekiq::Web` and `Sidekiq::Batch`
# then resolve to Deckhand, and `require "sidekiq"`, "sidekiq/api",
# "sidekiq/web", "sidekiq/testing", "sidekiq/cli" and the other files
# applications require load these (the shims folder, sidekiq/shims/, goes
# first on the load path). Anything not supported raises
# Deckhand::DropIn::Unsupported naming it. Plain Deckhand never loads this.
# It stands in for Sidekiq 8.1, or 7.3 (`require "deckhand/sidekiq/7"` in
# its place, or DECKHAND_SIDEKIQ=7; the default on Ruby 3.1): DropIn::Version.
# See docs/migrating-from-sidekiq.md.
if defined?(Sidekiq::VERSION) && !defined?(Sidekiq::DECKHAND)
  require_relative "sidekiq/refusal"
  raise LoadError, Deckhand::DropInRefusal.sidekiq_loaded(Sidekiq::VERSION)
end

require_relative "../deckhand"
require_relative "sidekiq/version"
require_relative "sidekiq/unsupported"
require_relative "sidekiq/push_errors"
require_relative "sidekiq/job/strict_args"

module Deckhand
  # The code behind drop-in mode (lib/deckhand/sidekiq/): the Sidekiq
  # constants it defines delegate here and to Deckhand's own classes.
  module DropIn
    SHIMS = File.expand_path("sidekiq/shims", __dir__)
  end
end

# The Sidekiq version drop-in mode stands in for, chosen now, once; pushes
# dated by its clock.
Deckhand::Payload.host_clock = Deckhand::DropIn.version.push_clock

# Timestamps and discards as the Sidekiq version writes and reports them
# (DropIn::Version). Deckhand's server and dashboard read either timestamp
# format. Sidekiq's default dead_max_jobs of 10,000 keeps 9,999 dead jobs
# (Sidekiq::Config#[]= explains). Sidekiq runs 5 threads unless told
# otherwise, what a Rails application's database pool of 5 is sized for.
# Sidekiq keeps a failure's backtrace only when the job's `backtrace`
# option asks for it.
# A Sidekiq process record lives 60 s without a beat, which Sidekiq's tools
# and a mixed fleet's dashboards expect of every process.
Deckhand::Config.defaults = Deckhand::Config.defaults.merge(timestamps: Deckhand::DropIn.version.timestamps,
  death_handlers_on_discard: Deckhand::DropIn.version.death_handlers_on_discard?, dead_max_jobs: 9_999, concurrency: 5,
  backtrace_lines: 0, heartbeat_ttl: 60)

$LOAD_PATH.unshift(Deckhand::DropIn::SHIMS) unless $LOAD_PATH.include?(Deckhand::DropIn::SHIMS)

require_relative "sidekiq/config"
require_relative "sidekiq/middleware/chain"
require_relative "sidekiq/sidekiq_module"
require_relative "sidekiq/unique_jobs_options"
require_relative "sidekiq/job/options"
require_relative "sidekiq/job/setter"
require_relative "sidekiq/job"
require_relative "sidekiq/iterable_job"
require_relative "sidekiq/limiter"
require_relative "sidekiq/client"
require_relative "sidekiq/client/middleware_call"
require_relative "sidekiq/config/redis_connection"
require_relative "sidekiq/config/logger"
require_relative "sidekiq/client/transaction_aware_client"
require_relative "sidekiq/shutdown"
require_relative "sidekiq/gem_spec"

Deckhand::DropIn::GemSpec.register

# Rails and Active Job, as the sidekiq gem hooks into them: Deckhand's Railtie
# (jobs inside the reloader, the log) and `queue_adapter = :sidekiq` on
# Deckhand. Active Job is set up as it loads when Active Support came first;
# otherwise when the adapter or Sidekiq::ActiveJob is first named (the shim
# answering Rails' autoload of the adapter, the autoload of Sidekiq::ActiveJob).
if defined?(::Rails::Railtie)
  require_relative "rails"
  require_relative "sidekiq/rails_reloader"
end
ActiveSupport.on_load(:active_job) { require "deckhand/sidekiq/active_job" } if defined?(::ActiveSupport.on_load)

# A server in drop-in mode names its process as Sidekiq does, from
# Sidekiq::Launcher::PROCTITLES (a plugin's additions shown too).
Deckhand::Lifecycle.title = ->(server) do
  require "deckhand/sidekiq/internals/launcher"
  Sidekiq::Launcher.title_for(server)
end

# Every push calls client middleware with Sidekiq's arguments (the class as
# named, the job, its queue, the Redis pool), whichever API made it.
Deckhand::Client.middleware_call = Deckhand::DropIn::ClientMiddlewareCall
