# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # This process's side of a lot (the jobs one fetch took from one queue,
      # kept in Redis as one in-flight entry): which of its jobs are settled,
      # and whether Redis has been told. The fetcher reports a lot on its next
      # round trip once some of its jobs settled: the whole entry leaves Redis
      # when every job is settled, otherwise its bitmap is brought up to date so
      # a crash re-runs only the unsettled jobs. The caller holds the fetcher's
      # lock.
      #
      #   lot = Lot.new("default", 0, 42, 3)   # queue, its index in the capsule, lot id, size
      #   lot.settle(1)
      #   lot.report   # => [0, 42, "\x02", []]   (bitmap of the settled jobs)
      #   lot.settle(0, marked: true)           # a script wrote its outcome and its mark
      #   lot.settle(2)
      #   lot.report   # => [0, 42, "", [0]]      (all settled: delete the lot and its marks)
      #
      # It also keeps the payloads a fetch brought for it until processors
      # claim them (#hold, #claim), as one String rather than one object a
      # job: a fast capsule fetches up to a time slice of work ahead, long
      # enough for a String a job to outlive three minor GCs and be promoted,
      # which left about three old objects a job (the String, its unit and
      # the parser's frozen copy) for full GCs to collect.
      class Lot
        # queue: the list it was taken from; queue_name: the queue that list
        # belongs to (a partition's queue, Store::Layout::PartitionNames).
        attr_reader :queue, :queue_name, :index, :id, :size

        def initialize(queue, index, id, size)
          @queue = queue
          @queue_name = Store::Layout::PartitionNames.base(queue)
          @index = index
          @id = id
          @size = size
          @bits = Store::Inflight::LotBits.empty_bits(size)
          @settled = 0
          @marked = nil
          @held = nil
          @ends = nil
          @claimed = 0
        end

        # Keeps `payloads` (the fetch's Strings, in order) until claimed. They
        # are joined into one frozen String when they share an encoding (Redis
        # replies are UTF-8, BINARY only for bytes that are not): each claim then
        # takes a slice that shares its bytes. The Array given is emptied then,
        # so the reply's Strings die young even when a stale reference to the
        # Array outlives the round trip (the fetch thread's machine stack, which
        # Ruby's GC scans conservatively while that thread sleeps).
        def hold(payloads)
          @held = payloads
          encoding = payloads.first&.encoding
          same = true
          at = 0
          ends = payloads.map do |payload|
            same &&= payload.encoding == encoding
            at += payload.bytesize
          end
          return self unless same
          @ends = ends
          @held = payloads.join.freeze
          payloads.clear
          self
        end

        # The unit of the next unclaimed job, as a processor starts it (frozen:
        # the JSON parser then reads it without a copy). The caller serializes
        # claims (Fetch::Buffer's lock): one job, one claim.
        def claim
          position = @claimed
          @claimed = position + 1
          held = @held
          if (ends = @ends)
            from = position.zero? ? 0 : ends[position - 1]
            payload = held.byteslice(from, ends[position] - from).freeze
          else
            payload = held[position]
          end
          @held = @ends = nil if @claimed == @size # the slices keep what they share
          Fetch::UnitOfWork.new(self, position, payload, false)
        end

        # Marks the job at `position` settled; false if it already was. With
        # marked: true a script already marked it in Redis (its own field).
        def settle(position, marked: false)
          return false if Store::Inflight::LotBits.settled?(@bits, position)
          Store::Inflight::LotBits.settle!(@bits, position)
          (@marked ||= []) << position if marked
          @settled += 1
          true
        end

        def complete? = @settled == @size

        # The acknowledgement to send: [index, id, bitmap, []], or once every
        # job is settled [index, id, "", the positions marked by scripts].
        def report
          complete? ? [@index, @id, "", @marked || []] : [@index, @id, @bits.dup, []]
        end

        def landing? = false

        # Where the job at `position` sits in the in-flight record (for settle.lua).
        def place(position, _payload) = [:lot, @id, position]
      end
    end
  end
end
