# frozen_string_literal: true

begin
  require "opentelemetry"
rescue LoadError => e
  raise LoadError, "Deckhand::Tracing needs the opentelemetry-api gem (and an SDK, such as opentelemetry-sdk, " \
    "to export spans): add them to your Gemfile", cause: e
end
require_relative "tracing/client_middleware"
require_relative "tracing/server_middleware"

module Deckhand
  # OpenTelemetry tracing for jobs: a producer span around each push, whose
  # context travels in the payload (W3C `traceparent`, as Sidekiq's
  # OpenTelemetry instrumentation does), and a consumer span around each run,
  # continuing the pushing trace, with the messaging semantic conventions'
  # attributes. Loaded only when asked for; needs the opentelemetry-api gem.
  #
  #   require "deckhand/tracing"
  #   Deckhand.configure { |c| Deckhand::Tracing.install(c) }
  module Tracing
    # The spans' messaging.system.
    SYSTEM = "deckhand"

    module_function

    # Adds the client and server middleware to `config`, and returns it.
    def install(config)
      config.client_middleware.add(ClientMiddleware)
      config.server_middleware.add(ServerMiddleware)
      config
    end

    # The tracer the spans come from (the tracer provider's, named deckhand).
    def tracer = OpenTelemetry.tracer_provider.tracer("deckhand", VERSION)

    # A span's attributes for a job in `queue` (operation: "publish" or "process").
    def attributes(payload, queue, operation)
      {
        "messaging.system" => SYSTEM,
        "messaging.operation.type" => operation,
        "messaging.operation.name" => operation,
        "messaging.destination.name" => queue.to_s,
        "messaging.message.id" => payload["jid"].to_s,
        "deckhand.job.class" => (payload["wrapped"] || payload["class"]).to_s,
        "deckhand.job.retry_count" => payload["retry_count"].to_i
      }
    end
  end
end
