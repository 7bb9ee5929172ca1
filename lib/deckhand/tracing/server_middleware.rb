# frozen_string_literal: true

module Deckhand
  module Tracing
    # Server middleware: a consumer span "<queue> process" around each job,
    # child of the span that pushed it (read from the payload's
    # `traceparent`), so one trace runs from the request that pushed to the
    # job. A job that raises marks its span as an error. Installed by
    # Deckhand::Tracing.install.
    #
    #   config.server_middleware.add(Deckhand::Tracing::ServerMiddleware)
    class ServerMiddleware
      # Runs the job within a consumer span continuing the pushing trace.
      def call(_job, payload, queue, &block)
        parent = OpenTelemetry.propagation.extract(payload)
        attributes = Tracing.attributes(payload, queue, "process")
        OpenTelemetry::Context.with_current(parent) do
          Tracing.tracer.in_span("#{queue} process", kind: :consumer, attributes: attributes, &block)
        end
      end
    end
  end
end
