# frozen_string_literal: true

require_relative "../../operations/exposition"
require_relative "../../operations/fleet"

module Deckhand
  class Web
    module Pages
      # /metrics for Prometheus: the fleet's gauges read from Redis
      # (Operations::Fleet) in the text exposition format. A browser asking
      # for HTML gets the dashboard's metrics page at the same address. The
      # dashboard's authorization hook (Deckhand::Web.authorize) is asked
      # for every scrape: a falsy answer refuses it with 403.
      #
      #   scrape_configs:
      #     - job_name: deckhand
      #       metrics_path: /deckhand/metrics
      #       static_configs: [{targets: ["app.internal:3000"]}]
      class Prometheus < Action
        def show
          return Metrics.new(@web, request, params).index if browser?
          return [403, Headers.text(nonce), ["Refused by Deckhand::Web.authorize\n"]] unless can_act?
          out = Operations::Fleet.new(@web.config).write(Operations::Exposition.new)
          [200, Headers.common(nonce).merge("content-type" => Operations::Exposition::CONTENT_TYPE), [out.to_s]]
        end

        private

        # Prometheus asks for openmetrics or text/plain, never text/html.
        def browser? = request.get_header("HTTP_ACCEPT").to_s.include?("text/html")
      end
    end
  end
end
