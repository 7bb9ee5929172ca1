# frozen_string_literal: true

require_relative "../../operations/exposition"
require_relative "../../operations/fleet"

module Deckhand
  class Web
    module Pages
      # /metrics for Prometheus: the fleet's gauges read from Redis
      # (Operations::Fleet) in the text exposition format, for a client that
      # asks for it (Prometheus sends Accept: text/plain or openmetrics-text;
      # curl can, or add ?format=prometheus). Anyone else, a browser first,
      # gets the dashboard's metrics page at the same address. The
      # dashboard's authorization hook (Deckhand::Web.authorize) is asked
      # for every scrape: a falsy answer refuses it with 403.
      #
      #   scrape_configs:
      #     - job_name: deckhand
      #       metrics_path: /deckhand/metrics
      #       static_configs: [{targets: ["app.internal:3000"]}]
      class Prometheus < Action
        def show
          return Metrics.new(@web, request, params).index unless scrape?
          return [403, Headers.text(nonce), ["Refused by Deckhand::Web.authorize\n"]] unless can_act?
          out = Operations::Fleet.new(@web.config).write(Operations::Exposition.new)
          [200, Headers.common(nonce).merge("content-type" => Operations::Exposition::CONTENT_TYPE), [out.to_s]]
        end

        private

        def scrape?
          return true if request.GET["format"] == "prometheus"
          accept = request.get_header("HTTP_ACCEPT").to_s
          !accept.include?("text/html") && accept.match?(%r{text/plain|application/openmetrics-text})
        end
      end
    end
  end
end
