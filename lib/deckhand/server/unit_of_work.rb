# frozen_string_literal: true

module Deckhand
  module Server
    # A fetched job: its in-flight field (what acknowledges it), its raw bytes and
    # the queue it came from.
    UnitOfWork = Struct.new(:field, :payload, :queue) do
      # The units in a reply of fetch.lua: per source, queue, count, then
      # count pairs of field and payload.
      def self.from_reply(reply)
        units = []
        i = 0
        while i < reply.size
          queue = reply[i]
          count = reply[i + 1]
          i += 2
          count.times do
            units << new(reply[i], reply[i + 1], queue)
            i += 2
          end
        end
        units
      end
    end
  end
end
