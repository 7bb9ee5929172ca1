# frozen_string_literal: true

module Deckhand
  class Store
    module Tags
      class QueuePlacement
        # Which primary serves which hash slot, read from the cluster
        # (CLUSTER SLOTS through the store), and the slot of a key, computed
        # here as Redis does (CRC16-XMODEM of the key's hash tag, mod 16384) so
        # choosing among candidate tags costs no round trip.
        #
        #   slots = QueuePlacement::Slots.read(store)
        #   QueuePlacement::Slots.of("{queue:mail}:retry")   # => 12_413
        #   slots.primary_of("{queue:mail}")            # => "127.0.0.1:7002"
        #   slots.primaries                             # => ["127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"]
        class Slots # :nodoc:
          COUNT = 16_384

          # CRC16 with polynomial 0x1021, one entry per byte value.
          TABLE = Array.new(256) do |byte|
            crc = byte << 8
            8.times { crc = (crc.anybits?(0x8000) ? (crc << 1) ^ 0x1021 : crc << 1) & 0xffff }
            crc
          end.freeze

          # The slot of `key`: of its hash tag (what lies between its first {
          # and the next }) when that is not empty, else of the whole key.
          def self.of(key)
            open = key.index("{")
            close = open && key.index("}", open + 1)
            key = key[(open + 1)...close] if close && close > open + 1
            key.each_byte.reduce(0) { |crc, byte| ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff] } % COUNT
          end

          def self.read(store) = new(store.call("CLUSTER", "SLOTS"))

          # `ranges`: CLUSTER SLOTS' reply, [first, last, [host, port, id, ...], replicas...] per range.
          def initialize(ranges)
            @ranges = ranges.map { |first, last, (host, port)| [first, last, "#{host}:#{port}"] }.sort
          end

          # Every primary that serves slots, as "host:port", in address order.
          def primaries = @ranges.map(&:last).uniq.sort

          # The primary serving `key`'s slot ("host:port"), or nil while no
          # primary serves it.
          def primary_of(key)
            slot = self.class.of(key)
            range = @ranges.bsearch { |_first, last, _node| last >= slot }
            range[2] if range && range[0] <= slot
          end
        end
      end
    end
  end
end
