# frozen_string_literal: true

require_relative "../../operations/exposition"
require_relative "../../operations/fleet"

module Deckhand
  class Web
    module Pages
      # /metrics for Prometheus: the fleet's gauges read from Redis
      # (Operations::Fleet) in the text exposition format, for every client
      # but one that asks for HTML (a browser's Accept names text/html):
      # Prometheus, curl and scripts get the format, browsers the dashboard's
      # metrics page at the same address (?format=prometheus or ?format=html
      # chooses whatever the Accept header says). The
      # dashboard's authorization hook (Deckhand::Web.authorize) is asked
      # for every scrape: a falsy answer refuses it with 403.
      #
      #   scrape_configs:
      #     - job_name: deckhand
      #       metrics_path: /deckhand/metrics
      #       static_configs: [{targets: ["app.internal:3000"]}]
      class PrometheusPage < Action # :nodoc:
        def show
          return MetricsPage.new(@web, request, params).index unless scrape?
          return [403, Headers.text(nonce), ["Refused by Deckhand::Web.authorize\n"]] unless can_act?
          out = Operations::Fleet.new(@web.config).write(Operations::Exposition.new)
          [200, Headers.common(nonce).merge("content-type" => Operations::Exposition::CONTENT_TYPE), [out.to_s]]
        end

        private

        def scrape?
          case request.GET["format"]
          when "prometheus" then true
          when "html" then false
          else !request.get_header("HTTP_ACCEPT").to_s.match?(%r{text/html|application/xhtml\+xml})
          end
        end
      end
    end
  end
end
