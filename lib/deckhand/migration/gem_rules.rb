# frozen_string_literal: true

module Deckhand
  module Migration
    # What the check says about each Sidekiq-related gem in Gemfile.lock:
    # name => [verdict, advice]. Other gems named sidekiq-* get UNKNOWN.
    module GemRules
      DROP_IN = 'replace it with `gem "deckhand", require: "deckhand/sidekiq"` (drop-in mode)'
      PERIODIC = "move the schedule to Deckhand's periodic jobs (reading sidekiq-cron and sidekiq-scheduler files " \
        "into them is separate work, not in drop-in mode yet); until then keep one Sidekiq process running the schedule"

      RULES = {
        "sidekiq" => [:change, DROP_IN],
        "sidekiq-pro" => [:change, "remove it: batches (Sidekiq::Batch), reliable fetch, reliable scheduling and queue pause are built in"],
        "sidekiq-ent" => [:unsupported, "Enterprise features (rate limiters, unique jobs, periodic jobs, encryption, leader election) " \
          "are not all in this version: check each one you use against docs/migrating-from-sidekiq.md"],
        "sidekiq-cron" => [:change, PERIODIC],
        "sidekiq-scheduler" => [:change, PERIODIC],
        "sidekiq-unique-jobs" => [:unsupported, "its locks (lock: :until_executed, ...) have no counterpart in this version; " \
          "see the unique jobs table in docs/migrating-from-sidekiq.md"],
        "sidekiq-throttled" => [:unsupported, "it replaces Sidekiq's fetch, which Deckhand's reliable fetch does not allow"],
        "sidekiq-limit_fetch" => [:unsupported, "it replaces Sidekiq's fetch, which Deckhand's reliable fetch does not allow"],
        "sidekiq-failures" => [:unsupported, "it adds a tab to Sidekiq's Web UI; Deckhand's dashboard has no extension API " \
          "(its Dead and Retries pages show failures)"],
        "sidekiq-batch" => [:change, "remove it: Sidekiq::Batch is Deckhand's batches in drop-in mode"],
        "sidekiq-iteration" => [:unsupported, "iterable jobs are not in this version"],
        "sidekiq-status" => [:unsupported, "it relies on Sidekiq internals beyond the public API; not tested with Deckhand"]
      }.freeze

      UNKNOWN = [:unsupported, "a Sidekiq plugin the check does not know: it works only if it uses Sidekiq's public API alone; try it in drop-in mode"].freeze

      module_function

      def verdict(name) = RULES.fetch(name) { name.start_with?("sidekiq-", "sidekiq_") ? UNKNOWN : nil }
    end
  end
end
