# frozen_string_literal: true

module Deckhand
  module Migration
    # What the check says about each Sidekiq-related gem in Gemfile.lock:
    # name => [verdict, advice]. Other gems named sidekiq-* or sidekiq_* get UNKNOWN.
    module GemRules
      DROP_IN = 'replace it with `gem "deckhand", require: "deckhand/sidekiq"` (drop-in mode)'
      PERIODIC = "remove it: Deckhand's periodic jobs read its schedule as is (this report lists each entry); " \
        "load a schedule file with `periodic: {sidekiq_schedule: config/schedule.yml}` in config/deckhand.yml, " \
        "and add `gem \"fugit\"` to the Gemfile, which it brought along and Deckhand's periodic jobs need"

      RULES = {
        "sidekiq" => [:change, DROP_IN],
        "sidekiq-pro" => [:change, "remove it: batches (Sidekiq::Batch), reliable fetch, reliable scheduling and queue pause are built in"],
        "sidekiq-ent" => [:change, "remove it: unique jobs, expiring jobs, encryption and periodic jobs work in drop-in mode; " \
          "rate limiters (Sidekiq::Limiter) and leader election do not: the code checks below name what you use"],
        "sidekiq-cron" => [:change, PERIODIC],
        "sidekiq-scheduler" => [:change, PERIODIC],
        "sidekiq-unique-jobs" => [:change, "remove it: lock: :until_executed / :until_executing with lock_ttl: are Deckhand's unique jobs " \
          "in drop-in mode; the other locks are not (the code checks below name what you use; table in docs/migrating-from-sidekiq.md)"],
        "sidekiq-throttled" => [:unsupported, "it replaces Sidekiq's fetch, which Deckhand's reliable fetch does not allow"],
        "sidekiq-limit_fetch" => [:unsupported, "it replaces Sidekiq's fetch, which Deckhand's reliable fetch does not allow"],
        "sidekiq-failures" => [:change, "its failure-recording middleware works in drop-in mode (its tests pass there), its " \
          "Failures tab does not (it reads its set through Sidekiq::SortedEntry's own constructor): leave the tab out " \
          "(Deckhand's Retries and Dead pages show failures); put `gem \"deckhand\", require: \"deckhand/sidekiq\"` above it"],
        "sidekiq-batch" => [:change, "remove it: Sidekiq::Batch is Deckhand's batches in drop-in mode"],
        "sidekiq-iteration" => [:change, "remove it: include Sidekiq::IterableJob (Deckhand's iterable jobs) in its place"],
        "sidekiq-status" => [:works, "its suite passes in drop-in mode but for one thing: a retried job is not marked queued " \
          "again when its retry comes due (Deckhand's scheduler runs no client middleware); put " \
          "`gem \"deckhand\", require: \"deckhand/sidekiq\"` above it (docs/compatibility.md)"],
        "rspec-sidekiq" => [:works, "its matchers pass their own specs in drop-in mode (docs/compatibility.md lists the exceptions); " \
          "put `gem \"deckhand\", require: \"deckhand/sidekiq\"` above it"],
        "sidekiq_alive" => [:works, "its liveness probe runs in drop-in mode (its suite passes there); put " \
          "`gem \"deckhand\", require: \"deckhand/sidekiq\"` above it"]
      }.freeze

      UNKNOWN = [:unsupported, "a Sidekiq plugin the check does not know: it works only if it uses Sidekiq's public API alone; try it in drop-in mode"].freeze

      module_function

      def verdict(name) = RULES.fetch(name) { name.start_with?("sidekiq-", "sidekiq_") ? UNKNOWN : nil }
    end
  end
end
