# frozen_string_literal: true

module Deckhand
  module Migration
    # Patterns the check looks for in the application's Ruby files, each with
    # its verdict and advice: [pattern, verdict, what, advice].
    module CodeRules
      SHARD_POOLS = "a pool from Sidekiq::RedisConnection.create(url: ...) or a ConnectionPool of redis-client connections " \
        "is taken; run a deckhand server per Redis (docs/sharding.md)"

      RULES = [
        [/include\s+Sidekiq::(Job|Worker)\b/, :works, "job classes (include Sidekiq::Job / Sidekiq::Worker)", nil],
        [/\bsidekiq_(options|retry_in|retries_exhausted)\b/, :works, "sidekiq_options, sidekiq_retry_in, sidekiq_retries_exhausted", nil],
        [/\.perform_(async|in|at|bulk|inline)\b|\.set\(/, :works, "perform_async / perform_in / perform_at / perform_bulk / set", nil],
        [/queue_adapter\s*=\s*:sidekiq\b/, :works, "Active Job on queue_adapter = :sidekiq (Deckhand's adapter; jobs written as Sidekiq's adapter writes them)", nil],
        [/Sidekiq\.configure_(server|client)\b/, :works, "Sidekiq.configure_server / configure_client", nil],
        [/Sidekiq::Testing\b/, :works, "Sidekiq::Testing (fake!, inline!, jobs, drain)", nil],
        # RSpec reads the size of the object given, before and after: `jobs`
        # is the same live Array every call, as in Sidekiq.
        [/\bchange\(\s*[\w:]+\.jobs\s*,/, :works, "change(MyJob.jobs, :size) in tests", nil],
        [/Sidekiq::(Queue|RetrySet|ScheduledSet|DeadSet|ProcessSet|Stats|WorkSet)\b/, :works, "Sidekiq's data API", nil],
        [/Sidekiq::Web\b/, :works, "Sidekiq::Web (mounts Deckhand's dashboard)", nil],
        [/Sidekiq::Batch\b/, :works, "Sidekiq::Batch (Deckhand's batches)", nil],
        [/Sidekiq\.redis\b/, :works, "Sidekiq.redis { |conn| ... }", nil],
        [/Sidekiq::Client\.via\b/, :change, "Sidekiq::Client.via (Redis sharding)", SHARD_POOLS],
        [/sidekiq_options.*\bpool:/, :change, "sidekiq_options pool: (Redis sharding)", SHARD_POOLS],
        # Only where a job's options are given: `expires_in:` is Rails.cache's too.
        [/(sidekiq_options|\.set\().*\b(unique_for|unique_until|expires_in|encrypt):/, :works, "Sidekiq Enterprise job options (unique_for, unique_until, expires_in, encrypt)", nil],
        [/\.periodic\s*(do\b|\{)/, :works, "Sidekiq Enterprise periodic jobs (config.periodic { |mgr| mgr.register(...) })", nil],
        [/Sidekiq::Enterprise::Crypto\.enable\b/, :works, "Sidekiq Enterprise encryption (Crypto.enable)",
          "jobs Sidekiq Enterprise encrypted are not readable by Deckhand (nor the reverse): drain them before switching"],
        [/\block:\s*[:"']?(until_executed|until_executing)\b/, :works, "sidekiq-unique-jobs lock: :until_executed / :until_executing (Deckhand's unique jobs)",
          "each needs lock_ttl: (Deckhand's locks always expire)"],
        [/\block:\s*[:"']?(until_expired|while_executing|until_and_while_executing)\b/, :unsupported,
          "sidekiq-unique-jobs lock: :until_expired / :while_executing / :until_and_while_executing", "no counterpart: see the unique jobs table in docs/migrating-from-sidekiq.md"],
        [/\bon_conflict:\s*([:"']?(reject|replace|reschedule)\b|\{)/, :unsupported, "sidekiq-unique-jobs on_conflict: :reject / :replace / :reschedule (or per client/server)",
          "Deckhand logs a duplicate (:log) or raises (:raise); see docs/migrating-from-sidekiq.md"],
        [/Sidekiq::Cron::Job\b|Sidekiq::Scheduler\b|SidekiqScheduler\b/, :change, "sidekiq-cron / sidekiq-scheduler calls",
          "load the schedule file with Deckhand's periodic jobs instead (periodic: {sidekiq_schedule: config/schedule.yml})"],
        [/Sidekiq::Limiter\.configure\b/, :change, "Sidekiq::Limiter.configure",
          "mark an API's own error with Deckhand::Limiter.over_limit_error and give each limiter its backoff: (docs/limits.md)"],
        [/Sidekiq::Limiter\.(concurrent|bucket|window|leaky|points|unlimited)\b/, :works, "Sidekiq::Limiter (Deckhand's rate limiters)", nil],
        [/Sidekiq::IterableJob\b/, :works, "Sidekiq::IterableJob (Deckhand's iterable jobs, the same it-<jid> progress)", nil],
        [/\.delay(_for|_until)?\b|Sidekiq::Extensions/, :unsupported, "Sidekiq's delayed extensions (.delay)", "removed in Sidekiq 7 too: push a job class"],
        [/Sidekiq::Web\.(register|tabs|custom_tabs|locales|custom_job_info_rows)/, :works, "Sidekiq::Web extensions (register, tabs, locales, custom_job_info_rows: served in Deckhand's dashboard)", nil],
        [/\.on\(:(heartbeat|beat|exit)\)/, :works, "config.on(:heartbeat) / config.on(:beat) / config.on(:exit) (Deckhand fires them)", nil],
        [/\.on\(:leader\)/, :unsupported, "config.on(:leader)", "Deckhand fires :startup, :quiet, :shutdown, :exit, :heartbeat and :beat; leadership is Deckhand::Lifecycle.on(:leader)"],
        [/config\[:fetch(_class)?\]|fetch_class\s*=/, :unsupported, "a custom fetch (config[:fetch])", "Deckhand's reliable fetch cannot be replaced"],
        [/Sidekiq\.configure_embed\b/, :works, "Sidekiq.configure_embed (an embedded Deckhand server: run, quiet, stop)", nil],
        [/Sidekiq\.default_job_options\b/, :works, "Sidekiq.default_job_options (the options every job class starts from)", nil],
        [/Sidekiq\.strict_args!\s*\(\s*false/, :works, "Sidekiq.strict_args!(false) (arguments go as JSON makes them, as in Sidekiq 7)", nil],
        # Not Rails' own stack (config.middleware.insert_before ...).
        [/(?<!\bmiddleware)\.insert_(before|after)\b/, :works, "middleware chain insert_before / insert_after", nil],
        [/\.(super_fetch|reliable_scheduler)!/, :change, "Sidekiq Pro's super_fetch! / reliable_scheduler!", "remove the call: Deckhand does it always (drop-in mode only warns)"],
        [/Sidekiq::(Processor|Manager|BasicFetch)\b(?!::(WORK_STATE|PROCESSED|FAILURE))/, :unsupported, "Sidekiq's server internals (Processor, Manager, BasicFetch)",
          "Deckhand's server runs neither Sidekiq's processor, manager nor fetch (a patch of them changes nothing in a server); " \
            "Sidekiq::Processor#process runs a job handed to it, and a server starts with the deckhand command or Sidekiq.configure_embed"],
        [/Sidekiq::Launcher\b|Sidekiq::Processor::(WORK_STATE|PROCESSED|FAILURE)/, :works,
          "Sidekiq::Launcher (a Deckhand server; PROCTITLES name the process), Processor::WORK_STATE and its counters", nil],
        [/Sidekiq::WebHelpers\b/, :works, "Sidekiq::WebHelpers (the helpers of Web extension pages)", nil],
        [/Sidekiq::Deploy\b/, :works, "Sidekiq::Deploy.mark! (deploy marks, stored where Sidekiq keeps them)", nil],
        [%r{sidekiq/middleware/i18n}, :works, "the I18n middleware (a job runs in the locale it was pushed in)", nil]
      ].freeze
    end
  end
end
