# frozen_string_literal: true

module Deckhand
  class Store
    # The value under which a process keeps a lot (the jobs one fetch took from
    # one queue) in its in-flight hash: the payloads' byte lengths,
    # comma-separated, a newline, then the payloads end to end. Beside it,
    # field "<id>~" is a bitmap of the lot's settled jobs: bit p % 8 of byte
    # p / 8 for position p. store/scripts/lib/lot.lua reads and writes the
    # same form inside Redis. One value per lot instead of one field per job
    # is what keeps Redis' work per job close to the pop itself.
    #
    #   value = Store::Lot.encode(['{"jid":"a"}', '{"jid":"b"}'])   # => "11,11\n{...}{...}"
    #   Store::Lot.decode(value)                                    # => ['{"jid":"a"}', '{"jid":"b"}']
    #   Store::Lot.settled?("\x01", 0)                              # => true
    module Lot
      module_function

      def encode(payloads) = "#{payloads.map(&:bytesize).join(",")}\n#{payloads.join}"

      def decode(value)
        newline = value.index("\n") or return []
        at = newline + 1
        value.byteslice(0, newline).split(",").map do |length|
          payload = value.byteslice(at, length.to_i)
          at += length.to_i
          payload
        end
      end

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
    end
  end
end
