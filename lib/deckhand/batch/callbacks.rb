# frozen_string_literal: true

require "json"

module Deckhand
  class Batch
    # The callbacks registered on a new batch, stored with it in Redis as the
    # ready-made heads of their jobs' JSON. The batch scripts add the timestamps
    # (and the parent's bid, for a child batch) when it pushes them, so each
    # callback job's jid is fixed when the batch is created.
    class Callbacks # :nodoc:
      def initialize
        @targets = Hash.new { |hash, event| hash[event] = [] }
      end

      def add(event, target, options)
        event = event.to_s
        unless EVENTS.include?(event)
          raise ArgumentError, "unknown batch event #{event.inspect}; use one of :#{EVENTS.join(", :")}"
        end
        name = target.is_a?(Module) ? target.name : target
        raise ArgumentError, "a batch callback target is a class or its name, got #{target.inspect}" unless name.is_a?(String) && !name.empty?
        raise ArgumentError, "batch callback options must be a Hash, got #{options.class}" unless options.is_a?(Hash)
        Payload::Validator.check_args!([options], name)
        @targets[event] << [name, options]
      end

      # A JSON array of [jid, payload head], or "" when the event has none.
      def encoded(event, bid, queue)
        targets = @targets.fetch(event, [])
        return "" if targets.empty?
        entries = targets.map do |name, options|
          jid = Payload.jid
          job = {"class" => CallbackJob.name, "args" => [bid, event, name, options], "queue" => queue, "jid" => jid, "retry" => true}
          [jid, JSON.generate(job).delete_suffix("}")]
        end
        JSON.generate(entries)
      end
    end
  end
end
