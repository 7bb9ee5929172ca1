# frozen_string_literal: true

require "set"

module Deckhand
  module Server
    module Chores
      # What the heartbeat last wrote of the chunks' members this process runs
      # (Store::Records::ChunkMembers), so each beat sends only the members of
      # the chunks that started or ended since: a chunk of 1,000 costs one
      # write of its jids when it starts and one when it ends, not one per
      # beat. A beat that failed may or may not have reached Redis, so the next
      # one writes the set anew.
      #
      #   roster = ChunkRoster.new
      #   change = roster.change(activity.running)   # => Change, or nil: nothing to write
      #   roster.settled(true)                       # the beat that carried it reached Redis
      class ChunkRoster # :nodoc:
        # added, removed: jids; fresh: write the set anew.
        Change = Struct.new(:added, :removed, :fresh)

        def initialize
          @written = Set.new
          @fresh = false # a new process's identity has no set yet
          @pending = nil
        end

        # running: thread id => Activity::Running (what answers no chunk_jids runs no chunk).
        def change(running)
          now = running.each_value.with_object(Set.new) do |slot, jids|
            (slot.chunk_jids if slot.respond_to?(:chunk_jids))&.each { |jid| jids << jid if jid.is_a?(String) }
          end
          @pending =
            if @fresh
              Change.new(now.to_a, [], true)
            elsif !(now.empty? && @written.empty?)
              Change.new((now - @written).to_a, (@written - now).to_a, false) # both empty: the TTL alone
            end
        end

        # reached: whether the beat that carried the last change reached Redis.
        def settled(reached)
          change, @pending = @pending, nil
          return @fresh = true unless reached
          return unless change
          @written = change.fresh ? Set.new(change.added) : (@written | change.added) - change.removed
          @fresh = false
        end
      end
    end
  end
end
