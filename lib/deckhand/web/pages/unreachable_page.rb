# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # What every page answers (503) while Redis does not: which Redis (its
      # address, never a password), why, and that the pages come back by
      # themselves, with the navigation, rendered without touching Redis. A
      # request for JSON (stats.json, or an Accept that names JSON and not
      # HTML) gets the same in JSON, one that asks for neither (a Prometheus
      # scrape) a line of text. Retry-After says when to ask again.
      #
      #   Pages::UnreachablePage.new(web, request, {}).show(error)  # => [503, headers, [html or json]]
      class UnreachablePage < Action # :nodoc:
        RETRY_AFTER = 5

        def show(error)
          @bare = true
          @fleet_time = Time.now # the footer's clock: Redis' would be a round trip to a Redis that does not answer
          @redis = Config::RedisUrl.redact(@web.config.store.location)
          @reached = !error.is_a?(Deckhand::ConnectionError) # it answered, with a refusal
          @reason = redact(@reached ? error.message : error.reason)
          status, headers, body =
            case answer_kind
            when :json then outage_json
            when :text then [503, Headers.text(@nonce), ["#{machine_heading}: #{@reason} (#{@redis}). Retry in #{RETRY_AFTER} s.\n"]]
            else render(:unreachable, status: 503, title: heading)
            end
          [status, headers.merge("retry-after" => RETRY_AFTER.to_s), body]
        end

        # The page's heading, in the reader's language.
        def heading = @reached ? t("outage.refused_title") : t("outage.silent_title")

        # The heading of the JSON and text answers, for programs and logs: English.
        def machine_heading = Locale[Locale::DEFAULT].t(@reached ? "outage.refused_title" : "outage.silent_title")

        private

        # JSON for stats.json and a client that asks for JSON, a page for a
        # browser (or a client that names nothing), text for the rest (a
        # Prometheus scrape of /metrics, curl).
        def answer_kind
          accept = request.get_header("HTTP_ACCEPT").to_s
          html = accept.empty? || accept.match?(%r{text/html|application/xhtml\+xml})
          return :json if request.path_info.end_with?(".json") || (accept.include?("json") && !html)
          html ? :html : :text
        end

        def outage_json
          data = {error: @reached ? "redis_refused" : "redis_unreachable", message: "#{machine_heading}: #{@reason}", redis: @redis,
                  retry_after: RETRY_AFTER}
          [503, Headers.json(@nonce), [JSON.generate(data)]]
        end

        # Any URL in a message, with its password (if any) masked.
        def redact(text) = text.gsub(%r{[a-z][a-z0-9+.-]*://[^\s()]+}i) { |url| Config::RedisUrl.redact(url) }
      end
    end
  end
end
