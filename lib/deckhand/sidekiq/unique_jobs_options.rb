# frozen_string_literal: true

module Deckhand
  module DropIn
    # sidekiq-unique-jobs' lock options (`lock:`, `lock_ttl:`, `on_conflict:`)
    # as Deckhand's unique job options, where the meanings match; where they
    # do not, the declaration raises naming the option (the table is in
    # docs/migrating-from-sidekiq.md).
    #
    #   UniqueJobsOptions.translate("lock" => :until_executed, "lock_ttl" => 600)
    #   # => {"unique_for" => 600, "unique_until" => "success"}
    module UniqueJobsOptions
      # lock: => Deckhand's unique_until.
      LOCKS = {"until_executed" => "success", "until_executing" => "start"}.freeze
      NO_MATCH = {
        "until_expired" => "its lock outlives the job until lock_ttl; Deckhand releases a lock when the job succeeds or dies",
        "while_executing" => "it limits concurrent runs, not pushes; Deckhand has no runtime lock",
        "until_and_while_executing" => "it adds a runtime lock; Deckhand has none: use lock: :until_executing"
      }.freeze
      KEYS = %w[lock lock_ttl lock_timeout on_conflict lock_args_method lock_prefix lock_limit lock_info].freeze

      module_function

      # Options without sidekiq-unique-jobs' keys, plus Deckhand's for them.
      def translate(options)
        return options unless options.key?("lock")
        lock = options["lock"].to_s
        unique_until = LOCKS.fetch(lock) { raise Unsupported.new("sidekiq_options lock: :#{lock}", NO_MATCH.fetch(lock, "unknown lock type")) }
        ttl = options["lock_ttl"]
        unless ttl.is_a?(Numeric) && ttl.positive?
          raise Unsupported.new("sidekiq_options lock: :#{lock} without lock_ttl:", "Deckhand's locks always expire: add lock_ttl: (seconds)")
        end
        extra = options.keys & (KEYS - %w[lock lock_ttl on_conflict])
        raise Unsupported.new("sidekiq_options #{extra.first}:", "Deckhand's unique jobs have no such option") unless extra.empty?
        options.except(*KEYS).merge("unique_for" => ttl, "unique_until" => unique_until).merge(conflict(options["on_conflict"]))
      end

      # :log is Deckhand's default (the duplicate is logged, the push returns nil).
      def conflict(value)
        case value&.to_s
        when nil, "log" then {}
        when "raise" then {"on_conflict" => "raise"}
        else raise Unsupported.new("sidekiq_options on_conflict: :#{value}", "Deckhand logs a duplicate (on_conflict: :log) or raises (on_conflict: :raise)")
        end
      end
    end
  end
end
