# frozen_string_literal: true

module Deckhand
  module Migration
    # Patterns the check looks for in the application's Ruby files, each with
    # its verdict and advice: [pattern, verdict, what, advice].
    module CodeRules
      RULES = [
        [/include\s+Sidekiq::(Job|Worker)\b/, :works, "job classes (include Sidekiq::Job / Sidekiq::Worker)", nil],
        [/\bsidekiq_(options|retry_in|retries_exhausted)\b/, :works, "sidekiq_options, sidekiq_retry_in, sidekiq_retries_exhausted", nil],
        [/\.perform_(async|in|at|bulk|inline)\b|\.set\(/, :works, "perform_async / perform_in / perform_at / perform_bulk / set", nil],
        [/Sidekiq\.configure_(server|client)\b/, :works, "Sidekiq.configure_server / configure_client", nil],
        [/Sidekiq::Testing\b/, :works, "Sidekiq::Testing (fake!, inline!, jobs, drain)", nil],
        [/Sidekiq::(Queue|RetrySet|ScheduledSet|DeadSet|ProcessSet|Stats|WorkSet)\b/, :works, "Sidekiq's data API", nil],
        [/Sidekiq::Web\b/, :works, "Sidekiq::Web (mounts Deckhand's dashboard)", nil],
        [/Sidekiq::Batch\b/, :works, "Sidekiq::Batch (Deckhand's batches)", nil],
        [/Sidekiq\.redis\b/, :works, "Sidekiq.redis { |conn| ... }", nil],
        [/Sidekiq::Client\.via\b/, :unsupported, "Sidekiq::Client.via (Redis sharding)", "Deckhand uses the one Redis of its configuration"],
        [/sidekiq_options.*\bpool:/, :unsupported, "sidekiq_options pool: (Redis sharding)", "Deckhand uses the one Redis of its configuration"],
        [/sidekiq_options.*\b(lock|on_conflict):/, :unsupported, "sidekiq-unique-jobs options (lock:, on_conflict:)", "no unique jobs in this version"],
        [/Sidekiq::Limiter\b/, :unsupported, "Sidekiq::Limiter (Enterprise rate limiters)", "not in this version"],
        [/Sidekiq::IterableJob\b/, :unsupported, "Sidekiq::IterableJob", "not in this version"],
        [/\.delay(_for|_until)?\b|Sidekiq::Extensions/, :unsupported, "Sidekiq's delayed extensions (.delay)", "removed in Sidekiq 7 too: push a job class"],
        [/Sidekiq::Web\.(register|tabs|custom_tabs|locales)/, :unsupported, "Sidekiq::Web extensions (register, tabs, locales)", "Deckhand's dashboard has no extension API"],
        [/\.on\(:(heartbeat|beat|leader|exit)\)/, :unsupported, "config.on(:heartbeat/:beat/:leader)", "Deckhand fires :startup, :quiet and :shutdown"],
        [/config\[:fetch(_class)?\]|fetch_class\s*=/, :unsupported, "a custom fetch (config[:fetch])", "Deckhand's reliable fetch cannot be replaced"],
        [/Sidekiq\.configure_embed\b/, :change, "Sidekiq.configure_embed", "use Deckhand::Embedded (docs/embedding.md)"],
        [/Sidekiq\.default_job_options\b/, :change, "Sidekiq.default_job_options", "set the options in each class (or a base class) with sidekiq_options"],
        [/Sidekiq\.strict_args!\s*\(\s*false/, :change, "Sidekiq.strict_args!(false)", "Deckhand always refuses arguments JSON cannot carry: pass JSON-native arguments"],
        [/\.insert_(before|after)\b/, :change, "middleware chain insert_before / insert_after", "use add or prepend"],
        [/\.(super_fetch|reliable_scheduler)!/, :change, "Sidekiq Pro's super_fetch! / reliable_scheduler!", "remove the call: Deckhand does it always (drop-in mode only warns)"]
      ].freeze
    end
  end
end
