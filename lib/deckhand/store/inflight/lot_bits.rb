# frozen_string_literal: true

module Deckhand
  class Store # :nodoc:
    module Inflight
      # A lot: the jobs one fetch took from one queue. Its payloads are a list of
      # their own (Layout::Plain.lot), in the order they were taken; the queue's in-flight
      # hash holds "<id>" => its size and "<id>~" => a bitmap of the jobs already
      # settled: bit p % 8 of byte p / 8 for position p. store/scripts/lib/lot.lua
      # reads and writes the same bitmap inside Redis. One entry per lot instead
      # of one hash field per job is what keeps Redis' work per job close to the
      # pop itself.
      #
      #   bits = Store::Inflight::LotBits.empty_bits(3)     # => "\x00"
      #   Store::Inflight::LotBits.settle!(bits, 1)         # => "\x02"
      #   Store::Inflight::LotBits.settled?(bits, 1)        # => true
      module LotBits # :nodoc:
        module_function

        def settled?(bits, position)
          return false unless bits
          byte = bits.getbyte(position / 8) or return false
          byte.anybits?(1 << (position % 8))
        end

        # A bitmap for `size` jobs with none settled.
        def empty_bits(size) = ("\0" * ((size + 7) / 8)).b

        def settle!(bits, position)
          index = position / 8
          bits.setbyte(index, bits.getbyte(index) | (1 << (position % 8)))
          bits
        end

        # The lot ids in an in-flight hash (its other fields are bitmaps), in
        # the order they were taken.
        def ids(hash_fields) = hash_fields.grep(/\A\d+\z/).sort_by(&:to_i)
      end
    end
  end
end
