# frozen_string_literal: true

require "digest/sha2"
require "json"

module Deckhand
  # Pushes that collapse by key (docs/debounce.md): a burst of pushes of one
  # key runs once.
  #
  #   class ReindexJob
  #     include Deckhand::Job
  #     # runs once, 5 s after the last push of a burst for the same document
  #     deckhand_options debounce: {key: ->(args) { args.first }, wait: 5}
  #   end
  #
  #   class SyncJob
  #     include Deckhand::Job
  #     # one job per account an hour: a later push while it waits replaces it
  #     deckhand_options dedupe: {key: ->(args) { args.first }, ttl: 3600, on_conflict: :replace}
  #   end
  #
  # Without `key:` the job's args are the key. The key is scoped by class
  # and queue, like a unique lock's. Each push writes its job and a record
  # of it (Store::Layout's `collapse`, a hash of the waiting job's jid and
  # payload) in one script (store/scripts/push/collapse_push.lua), which
  # finds the job the previous push of the key left.
  module Collapsing
    # What a push asks of the script: its mode ("debounce", "replace",
    # "extend" or "keep"), the record's key, the wait or window in ms and the
    # record's life in ms.
    Claim = Struct.new(:mode, :key, :span_ms, :life_ms)

    MODES = %w[debounce dedupe].freeze
    CONFLICTS = %w[keep replace extend].freeze
    # How long a debounce record outlives its wait: a job the scheduler
    # moves late (no server ran) is still replaced by a push within it.
    DEBOUNCE_MARGIN_MS = 3_600_000

    module_function

    # nil when `value` is a valid debounce: or dedupe: option (false
    # included: push without), else what is wrong and how to fix it.
    def problem(mode, value)
      return nil if value == false
      return "give a Hash like #{example(mode)}, or false" unless value.is_a?(Hash)
      options = value.transform_keys(&:to_s)
      allowed = (mode == "debounce") ? %w[key wait] : %w[key ttl on_conflict]
      extra = options.keys - allowed
      return "unknown #{extra.join(", ")}: it takes #{allowed.join(", ")}, like #{example(mode)}" unless extra.empty?
      span = (mode == "debounce") ? "wait" : "ttl"
      seconds = options[span]
      unless seconds.respond_to?(:to_f) && !seconds.is_a?(String) && seconds.to_f.positive? && seconds.to_f.finite?
        return "#{span}: give a positive number of seconds (or an ActiveSupport::Duration), like #{example(mode)}"
      end
      conflict = options["on_conflict"]
      return "on_conflict: use :keep (the default), :replace or :extend" if conflict && !CONFLICTS.include?(conflict.to_s)
      key = options["key"]
      return "key: give a String, Symbol, Integer or a callable taking the args, like ->(args) { args.first }" unless key.nil? || key.respond_to?(:call) || scalar?(key)
      nil
    end

    # The option as a job carries it: string keys, seconds as plain numbers
    # (a key stays as given until the push resolves it).
    def normalize(mode, value)
      return false if value == false
      options = value.transform_keys(&:to_s)
      span = (mode == "debounce") ? "wait" : "ttl"
      seconds = options[span].to_f
      options[span] = (seconds % 1).zero? ? seconds.to_i : seconds
      options["on_conflict"] = (options["on_conflict"] || "keep").to_s if mode == "dedupe"
      options
    end

    # Readies a normalized job's debounce: or dedupe: for JSON: checks it
    # (an item pushed by name was never checked), calls a callable key with
    # the args, and takes out a `false`. Raises InvalidJob naming the fix.
    def resolve!(job)
      return job unless asked?(job)
      MODES.each do |mode|
        next unless job.key?(mode)
        value = job[mode]
        wrong = problem(mode, value) and raise InvalidJob, "#{job["class"]} #{mode}: #{value.inspect[0, 80]} is not valid; #{wrong}"
        next job.delete(mode) if value == false
        options = normalize(mode, value)
        if options["key"].respond_to?(:call)
          key = options["key"].call(job_args(job))
          raise InvalidJob, "#{job["class"]} #{mode}: key: the callable gave #{key.inspect[0, 80]}; return a String, Symbol or Integer" unless scalar?(key)
          options["key"] = key
        end
        options.delete("key") if options["key"].nil? # the args are the key
        options["key"] = options["key"].to_s if options["key"].is_a?(Symbol)
        job[mode] = options
      end
      raise InvalidJob, "#{job["class"]} has both debounce: and dedupe:; choose one" if job["debounce"] && job["dedupe"]
      job
    end

    # Whether a job (normalized or resolved) names debounce: or dedupe:.
    def asked?(job) = job.key?("debounce") || job.key?("dedupe")

    # The claim a resolved job makes with its push, or nil. `at`: its
    # scheduled time (a debounced job has none: the script sets it).
    def claim_for(job, at, layout)
      if (debounce = job["debounce"])
        raise InvalidJob, "#{job["class"]} has debounce:, which sets its time (wait after the last push): push it with perform_async, not perform_in or perform_at" if at
        wait = (debounce["wait"] * 1000).ceil
        Claim.new("debounce", key(job, "debounce", layout), wait, wait + DEBOUNCE_MARGIN_MS)
      elsif (dedupe = job["dedupe"])
        ttl = (dedupe["ttl"] * 1000).ceil
        Claim.new(dedupe["on_conflict"], key(job, "dedupe", layout), ttl, ttl)
      end
    end

    # The record's key in `layout`: the class (the Active Job class for
    # wrapped jobs), queue and key (the args when none was given), digested.
    def key(job, mode, layout)
      options = job[mode]
      scope = options.key?("key") ? ["key", options["key"]] : ["args", job_args(job)]
      name = (job["wrapped"] || job["class"]).to_s
      layout.collapse(job["queue"].to_s, mode, Digest::SHA256.hexdigest(JSON.generate([name, job["queue"].to_s, *scope])))
    end

    # An Active Job's own arguments, the args of any other job.
    def job_args(job)
      args = job["args"]
      (job["wrapped"] && args.first.is_a?(Hash) && args.first.key?("arguments")) ? args.first["arguments"] : args
    end

    def scalar?(key) = key.is_a?(String) || key.is_a?(Symbol) || key.is_a?(Integer)

    def example(mode) = (mode == "debounce") ? "{key: ->(args) { args.first }, wait: 5}" : "{key: ->(args) { args.first }, ttl: 600, on_conflict: :replace}"
  end
end
