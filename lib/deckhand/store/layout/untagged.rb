# frozen_string_literal: true

module Deckhand
  class Store
    module Layout
      # Keys named alike in plain and cluster mode: each is read and written
      # by one command at a time, never by a script beside other keys, so it
      # needs no hash tag; and the names of the per-class metrics hashes
      # under a layout's METRICS prefix (Store::Records::ExecutionMetrics).
      #
      #   Untagged::PAUSED                                     # => "deckhand:paused"
      #   Untagged.metrics_minute("deckhand:metrics", Time.utc(2026, 1, 2, 3, 4))   # => "deckhand:metrics:m:202601020304"
      #   Untagged.queue_samples("mailers", Time.utc(2026, 1, 2, 3))   # => "deckhand:samples:queue:2026010203:mailers"
      module Untagged # :nodoc:
        # Sets of paused queue names: Deckhand's own, and Sidekiq Pro's, which
        # a fleet moving from Sidekiq honours too.
        PAUSED = "deckhand:paused"
        SIDEKIQ_PAUSED = "paused"

        # Set of paused job class names (Store::Jobs::HeldClasses): a fetched
        # job of one waits in its queue's held set (Layout's `held`) instead
        # of running.
        PAUSED_CLASSES = "deckhand:paused:classes"

        # Hash of queue => the throttle set at run time (Store::Features::Throttles).
        THROTTLES = "deckhand:throttles"

        module_function

        # Hash of one queue's depth and latency in one UTC hour, a field a
        # minute (Store::Records::QueueSamples); and the marker (SET NX,
        # expiring) by which one process of the fleet takes a minute's samples.
        def queue_samples(name, hour) = "deckhand:samples:queue:#{hour.utc.strftime("%Y%m%d%H")}:#{name}"

        def samples_taken(minute) = "deckhand:samples:taken:#{minute}"

        def metrics_minute(prefix, time) = "#{prefix}:m:#{time.utc.strftime("%Y%m%d%H%M")}"

        def metrics_hour(prefix, time) = "#{prefix}:h:#{time.utc.strftime("%Y%m%d%H")}"

        def metrics_day(prefix, time) = "#{prefix}:d:#{time.utc.strftime("%Y%m%d")}"

        # Failures per error class (Store::Records::ErrorMetrics), beside the
        # per-class metrics and in their slot.
        def errors_minute(prefix, time) = "#{prefix}:e:m:#{time.utc.strftime("%Y%m%d%H%M")}"

        def errors_hour(prefix, time) = "#{prefix}:e:h:#{time.utc.strftime("%Y%m%d%H")}"
      end
    end
  end
end
