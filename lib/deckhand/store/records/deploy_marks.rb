# frozen_string_literal: true

module Deckhand
  class Store
    module Records
      # Deploy marks: a label per minute, kept 90 days, which the metrics show
      # beside the minute they fall in. A label is marked once a minute however
      # many processes mark it (the lock lasts 60 seconds).
      #
      #   DeployMarks.mark(store, Time.utc(2026, 3, 1, 12, 5), "abc123 Faster reports")
      #   DeployMarks.day(store, Date.new(2026, 3, 1))   # => {"2026-03-01T12:05:00Z" => "abc123 Faster reports"}
      module DeployMarks # :nodoc:
        TTL = 90 * 24 * 60 * 60
        LOCK_TTL = 60

        module_function

        # False when the label was marked less than a minute ago.
        def mark(store, minute, label)
          keys = store.layout
          stamp = minute.utc.iso8601
          return false unless store.call("SET", keys.deploy_lock(label), stamp, "NX", "EX", LOCK_TTL.to_s)
          key = keys.deploy_marks(minute.utc.strftime("%Y%m%d"))
          store.pipelined do |pipe|
            pipe.call("HSETNX", key, stamp, label)
            pipe.call("EXPIRE", key, TTL.to_s)
          end
          true
        end

        def day(store, date) = store.call("HGETALL", store.layout.deploy_marks(date.strftime("%Y%m%d")))
      end
    end
  end
end
