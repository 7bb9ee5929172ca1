# frozen_string_literal: true

require "json"

module Deckhand
  class Client
    # Encodes the jobs of one bulk push from a template: the JSON of what they
    # share (class, queue, retry, timestamps, options) is generated once, and
    # each job adds only its jid and its args. Used when no client middleware
    # needs each job as a Hash.
    #
    #   encoder = BulkEncoder.new(base_job, now: Payload.now, max_bytes: 1 << 20)
    #   encoder.queued("b4a5…", [1, "x"])     # => '{"class":"X",…,"jid":"b4a5…","args":[1,"x"]}'
    class BulkEncoder # :nodoc: all
      # Reused generator state: the args were validated, so strict mode never
      # trips. json before 2.10 has no JSON::Coder: JSON.generate then.
      module Generate
        def self.dump(args) = ::JSON.generate(args)
      end
      ARGS = defined?(::JSON::Coder) ? ::JSON::Coder.new : Generate

      def initialize(base, now:, max_bytes:)
        @base = base
        @max_bytes = max_bytes
        @queued_head = head(base.merge("enqueued_at" => now))
        @scheduled_head = head(base)
      end

      def queued(jid, args) = check("#{@queued_head}#{jid}\",\"args\":#{ARGS.dump(args)}}")

      def scheduled(jid, args) = check("#{@scheduled_head}#{jid}\",\"args\":#{ARGS.dump(args)}}")

      private

      # '{"class":"X",…' ready for the jid: the base without args or jid, its
      # closing brace replaced by the start of the jid field.
      def head(job) = JSON.generate(job.except("args", "jid")).delete_suffix("}") << ",\"jid\":\""

      def check(json)
        return json if json.bytesize <= @max_bytes
        raise InvalidJob, "#{@base["class"]} payload is #{json.bytesize} bytes, over the #{@max_bytes}-byte limit " \
          "(max_payload_bytes): store large data elsewhere (a database row, an object store) and pass its id"
      end
    end
  end
end
