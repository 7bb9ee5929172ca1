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
      def call(_class_name, payload, queue, _store)
        attributes = Tracing.attributes(payload, queue, "publish")
        Tracing.tracer.in_span("#{queue} publish", kind: :producer, attributes: attributes) do
          OpenTelemetry.propagation.inject(payload)
          yield
        end
      end
    end
  end
end
