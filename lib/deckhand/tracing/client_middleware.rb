# frozen_string_literal: true

module Deckhand
  module Tracing
    # Client middleware: a producer span "<queue> publish" around each push,
    # and its context written into the payload (`traceparent`, `tracestate`)
    # for the server to continue. Installed by Deckhand::Tracing.install.
    #
    #   config.client_middleware.add(Deckhand::Tracing::ClientMiddleware)
    class ClientMiddleware
      # Pushes within a producer span, its context written into the payload.
      # Outside any span, a job that carries a context continues its own
      # trace: the scheduler sends a due job through client middleware again
      # (docs/middleware.md), and its run stays in the trace of the request
      # that first pushed it.
      def call(_class_name, payload, queue, _store)
        attributes = Tracing.attributes(payload, queue, "publish")
        OpenTelemetry::Context.with_current(parent(payload)) do
          Tracing.tracer.in_span("#{queue} publish", kind: :producer, attributes: attributes) do
            OpenTelemetry.propagation.inject(payload)
            yield
          end
        end
      end

      private

      def parent(payload)
        current = OpenTelemetry::Context.current
        return current if OpenTelemetry::Trace.current_span(current).context.valid? || !payload.key?("traceparent")
        OpenTelemetry.propagation.extract(payload)
      end
    end
  end
end
