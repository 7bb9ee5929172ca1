# frozen_string_literal: true

require "json"
require_relative "store/features/job_results"

module Deckhand
  # A job's return value, kept for a while once it ran, and waited for by
  # the code that pushed it. A job keeps its value when its class (or the
  # push) asks for it with `result:`, on a server that loaded
  # `deckhand/workflow`:
  #
  #   class ThumbnailJob
  #     include Deckhand::Job
  #     deckhand_options result: {ttl: 600}    # seconds its value is kept
  #     def perform(id) = {"url" => "/thumbs/#{id}.png"}
  #   end
  #
  #   jid = ThumbnailJob.perform_async(7)       # a jid, as ever
  #   Deckhand::JobResult.wait(jid, timeout: 5) # => {"url" => "/thumbs/7.png"}
  #
  # The wait is one blocking Redis read of a key the job's server writes
  # with its value (no polling); any number of callers may wait for one job.
  # It raises ResultTimeout when nothing came in time, and JobFailed
  # when the job failed for good (it died, or was dropped). The value is
  # the job's return value through JSON: give JSON-native values (a value
  # JSON cannot carry unchanged is kept as nil, and the server logs why).
  module JobResult
    # How long an error message kept with a failure may be.
    MAX_MESSAGE = 1_000

    module_function

    # The value, once the job ran; waits up to `timeout` seconds.
    def wait(jid, timeout:, config: Client.current_config)
      seconds!(timeout, "Deckhand::JobResult.wait(jid, timeout:)")
      raw = Store::Features::JobResults.wait(config.store, jid, timeout)
      raise ResultTimeout, "no result for job #{jid} within #{timeout} s" unless raw
      read_envelope(raw, jid)
    end

    # Whether the job's value (or its failure) is there now.
    def ready?(jid, config: Client.current_config) = !Store::Features::JobResults.read(config.store, jid).nil?

    # What a server writes: the value (JSON), or the failure (a Hash of
    # "class" and "message"), as JSON.
    def envelope(value_json: nil, failure: nil)
      failure ? JSON.generate({"error" => failure}) : %({"value":#{value_json || "null"}})
    end

    def read_envelope(raw, jid) # :nodoc:
      data = JSON.parse(raw)
      failure = data["error"]
      raise JobFailed.new("job #{jid} failed: #{failure["class"]}: #{failure["message"]}", error_class: failure["class"]) if failure
      data["value"]
    end

    def seconds!(timeout, what) # :nodoc:
      return if timeout.is_a?(Numeric) && timeout.positive?
      raise ArgumentError, "#{what} needs a number of seconds above 0, got #{timeout.inspect}"
    end
  end
end
