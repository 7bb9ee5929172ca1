# frozen_string_literal: true

require_relative "../collapsing"
require_relative "../store/features/collapses"

module Deckhand
  class API
    # The debounce: or dedupe: of a job (docs/debounce.md), for the
    # dashboard and scripts: its key, its wait or window, and which push of
    # the key the record names now.
    #
    #   record = api.collapse(api.scheduled.first)   # nil for a job with neither
    #   record.mode      # => "debounce"
    #   record.key       # => "doc-1" (nil: the args are the key)
    #   record.seconds   # => 5 (the wait; a dedupe's window)
    #   record.latest    # => "b4a5..." (the jid of the last push of the key), nil once the record expired
    #   record.latest?   # => true when this job is that push
    class CollapseRecord
      # record: a JobRecord (queued job, set entry) or a job Hash.
      def self.of(record, config)
        item = record.respond_to?(:item) ? record.item : record
        return nil unless item.is_a?(Hash)
        mode = Collapsing::MODES.find { |name| item[name].is_a?(Hash) } or return nil
        new(item, mode, config)
      end

      attr_reader :mode, :redis_key

      def initialize(item, mode, config)
        @item = item
        @mode = mode
        @options = item[mode]
        @redis_key = Collapsing.key(item, mode, config.store.layout)
        @store = config.store
      end

      # The key the push gave (a callable's answer), nil when the args are the key.
      def key = @options["key"]

      # A debounce's wait, or a dedupe's window, in seconds.
      #
      # @return [Numeric]
      def seconds = @options[(@mode == "debounce") ? "wait" : "ttl"]

      # A dedupe's on_conflict ("keep", "replace", "extend"); nil for a debounce.
      def on_conflict = @options["on_conflict"]

      # The jid of the last push of the key, nil once the record expired.
      #
      # @return [String, nil]
      def latest = state&.first

      # True when this job is the key's last push, the one that will run.
      #
      #   api.collapse(api.scheduled.first)&.latest?
      #
      # @return [Boolean]
      def latest? = latest == @item["jid"]

      # Milliseconds the record has left (nil once it expired).
      def ttl_ms = state&.last

      private

      def state
        @state ||= [Store::Features::Collapses.record(@store, @redis_key)&.values_at(0, 2)]
        @state.first
      end
    end
  end
end
