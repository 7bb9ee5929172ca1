# frozen_string_literal: true

require_relative "queues"
require_relative "../scripts/sets/zset_move"
require_relative "../scripts/move/queue_move_batch"
require_relative "../tags/queue_placement"

module Deckhand
  class Store
    module Jobs
      # Pause by job class: the names in PAUSED_CLASSES. A server process
      # reads them with its heartbeat; a fetched job of a paused class is
      # not run but held, as it was fetched, in its queue's held set for the
      # class (settle.lua, in one step with leaving the in-flight record),
      # so the jobs of other classes in the same queue go on. Resuming takes
      # the name out, then moves every held job back to its queue (each
      # entry moved by the one call that removed it).
      #
      #   HeldClasses.pause(store, "ReportJob")
      #   HeldClasses.paused(store)                          # => ["ReportJob"]
      #   HeldClasses.held(store, "ReportJob", ["default"])  # => {"default" => 3}
      #   HeldClasses.resume(store, "ReportJob")             # => 3 (jobs back in their queues)
      module HeldClasses # :nodoc:
        PAUSED_CLASSES = Layout::Untagged::PAUSED_CLASSES
        # Held jobs moved back per script call.
        BATCH = 500

        module_function

        def pause(store, name) = store.call("SADD", PAUSED_CLASSES, name) == 1

        # Takes the name out, then moves the held jobs of `queues` (every
        # known queue by default) back. Returns how many it moved.
        def resume(store, name, queues = Queues.names(store))
          store.call("SREM", PAUSED_CLASSES, name)
          release(store, name, queues)
        end

        def paused(store) = store.call("SMEMBERS", PAUSED_CLASSES).sort

        # Queues the read of the paused classes on a pipeline (the heartbeat's).
        def paused_read(pipe) = pipe.call("SMEMBERS", PAUSED_CLASSES)

        # Moves the held jobs of class `name` in `queues` back to their
        # queues, as they were fetched; a server calls it for its own queues
        # when it sees a class resumed, for a job it held while it did not
        # know yet. Returns how many it moved. It moves as many as each set
        # held when it began: a process that has not seen the resume yet may
        # fetch a job moved back and hold it again, and that process moves
        # it back itself once it sees the resume (Server::Run::ClassPause).
        def release(store, name, queues)
          mover = Scripts::ZsetMove.new(store)
          gather(store, name, queues) unless store.layout.plain?
          queues.sum do |queue|
            key = store.layout.held(queue, name)
            left = store.call("ZCARD", key)
            moved = 0
            while left.positive? && !(raws = store.call("ZRANGE", key, 0, [left, BATCH].min - 1)).empty?
              moved += mover.call_within(key, queue, raws)
              left -= raws.size
            end
            moved
          end
        end

        # Cluster mode: jobs held under a tag a queue move retired (Tags::QueueMove
        # copies the held sets of the classes paused when it ran; a class
        # paused again since, or resumed before a move finished, may have left
        # some) join the held set under the queue's tag now, batch by batch,
        # each written once (Scripts::QueueMoveBatch), before they go back to
        # the queue.
        def gather(store, name, queues)
          retired = Tags::QueuePlacement::Moves.retired(store).select { |_, queue| queues.include?(queue) }
          return if retired.empty?
          batch = Scripts::QueueMoveBatch.new(store)
          retired.each do |tag, queue|
            from, to = Layout::TagNames.held(tag, name), store.layout.held(queue, name)
            next if from == to
            nil while batch.call(from, to, kind: "zset", limit: BATCH).positive?
          end
        end

        # {queue => jobs of class `name` held} for the queues holding any.
        def held(store, name, queues)
          return {} if queues.empty?
          counts = store.pipelined { |pipe| queues.each { |queue| pipe.call("ZCARD", store.layout.held(queue, name)) } }
          queues.zip(counts).select { |_, count| count.positive? }.to_h
        end
      end
    end
  end
end
