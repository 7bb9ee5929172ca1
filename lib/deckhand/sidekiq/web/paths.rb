# frozen_string_literal: true

require "json"
require_relative "forms"
require_relative "post_check"

module Deckhand
  module DropIn
    # What Sidekiq's dashboard answers at its addresses and Deckhand's does
    # elsewhere, in front of Deckhand's dashboard in drop-in mode: bookmarks,
    # monitors polling /stats and routers mounting it keep working.
    #
    #   WebPaths.new(Deckhand::Web.new).call(env)
    #
    # - /morgue (Sidekiq's dead page) is /dead; `substr=` (Sidekiq's filter) is `q=`.
    # - A queue's page takes Sidekiq's `count=` and `direction=`, newest
    #   first when `count=` comes without a direction, as Sidekiq shows it.
    # - /stats and /stats/queues answer Sidekiq's JSON; /dashboard/stats redirects to /stats.
    # - A method the dashboard never answers gets 404 with x-cascade: pass, so
    #   a Rack router may try its next route.
    # - HEAD / is the cheap heartbeat: it reads the default queue's size
    #   (the answer's body as Sidekiq 7.3 gives it; Sidekiq 8's is empty);
    #   /?days= beyond the year of history Deckhand keeps is a 401, as
    #   Sidekiq answers a number of days beyond its own.
    # - A queue name Sidekiq would not show gets 404; a retry, scheduled or
    #   dead job that is no longer there redirects (302) to its list, and the
    #   redirect after a form is a 302, as Sidekiq answers them.
    # - /metrics is the metrics page, as in Sidekiq, for every client but a
    #   scraper (an Accept naming text/plain or OpenMetrics, as Prometheus
    #   sends, or ?format=prometheus), which gets Deckhand's Prometheus text.
    # - Sidekiq's forms (WebForms) are answered as Sidekiq answers them.
    # - A POST passes the CSRF check where Sidekiq's would: with the Rack
    #   session's token in "authenticity_token", or with `$TESTING` set
    #   (Sidekiq 7.3 leaves its check out then); Deckhand's own check
    #   (Deckhand::Web::Guard: same-origin, or the cookie's token) passes
    #   what it passes. A browser saying the request is cross-site is
    #   refused all the same.
    class WebPaths
      METHODS = %w[GET HEAD POST].freeze
      QUEUE_NAME = /\A[a-z_:.\-0-9]+\z/i
      ENTRY = %r{\A/(retries|scheduled|morgue|dead)/[^/]+\z}
      QUEUE_PAGE = %r{\A/queues/[^/]+/?\z}

      def initialize(app, config: nil)
        @app = app
        @config = config
      end

      def call(env)
        return [404, {"content-type" => "text/plain", Sidekiq::Web::X_CASCADE => "pass"}, ["Not Found"]] unless METHODS.include?(env["REQUEST_METHOD"])
        path = env["PATH_INFO"].to_s
        return post(translate(env, path)) if env["REQUEST_METHOD"] == "POST"
        case path.delete_suffix("/")
        when ""
          return heartbeat if env["REQUEST_METHOD"] == "HEAD"
          return [401, {"content-type" => "text/plain"}, ["401"]] unless days_allowed?(env)
        when "/stats" then return json(stats)
        when "/stats/queues" then return json(Sidekiq::Stats.new.queues)
        when "/dashboard/stats" then return redirect(env, "stats")
        when %r{\A/queues/([^/]+)\z}
          return [404, {"content-type" => "text/plain"}, ["Not Found"]] unless QUEUE_NAME.match?(Rack::Utils.unescape_path($1))
        end
        status, _, body = response = @app.call(translate(env, path))
        return response unless status == 404 && (list = ENTRY.match(path)&.[](1))
        body.close if body.respond_to?(:close)
        redirect(env, (list == "dead") ? "morgue" : list)
      end

      private

      def post(env)
        check = WebPostCheck.new(env)
        params = check.form
        allowed = check.allowed?
        env = env.merge("HTTP_SEC_FETCH_SITE" => "same-origin") if allowed && !check.guarded? # what Deckhand::Web checks
        unless params.key?("action")
          return [403, {"content-type" => "text/plain"}, ["Forbidden"]] unless allowed
          return [403, {"content-type" => "text/plain"}, ["You may look but not change anything here"]] unless @app.authorized?(env)
          response = WebForms.new(@config).call(env, params)
          return response if response
        end
        as_sidekiq_redirect(@app.call(env))
      end

      def redirect(env, page) = [302, {"location" => "#{Rack::Request.new(env).base_url}#{env["SCRIPT_NAME"]}/#{page}"}, []]

      # Deckhand answers a form with 303 See Other, Sidekiq with 302 (browsers follow both with a GET).
      def as_sidekiq_redirect(response)
        (response[0] == 303) ? [302, *response.drop(1)] : response
      end

      # Sidekiq answers 401 to a history outside the days it keeps; Deckhand
      # keeps a year (its dashboard offers 7, 30, 90 and 365 days).
      def days_allowed?(env)
        days = Rack::Utils.parse_query(env["QUERY_STRING"].to_s)["days"]
        days.nil? || !days.is_a?(String) || (1..365).cover?(days.to_i)
      end

      def heartbeat
        size = Deckhand::API.new(@config || Deckhand.config).queue("default").size
        [200, {"content-type" => "text/plain"}, DropIn.version.empty_head_response? ? [] : [size.to_s]]
      end

      def translate(env, path)
        env = env.merge("PATH_INFO" => path.sub(%r{\A/?morgue(?=/|\z)}, "/dead"))
        query = Rack::Utils.parse_query(env["QUERY_STRING"].to_s)
        changed = query.key?("substr") && !query.key?("q")
        query["q"] = query.delete("substr") if changed
        # A queue paged Sidekiq's way (count=) is newest first unless it says otherwise, as in Sidekiq.
        if QUEUE_PAGE.match?(path) && query.key?("count") && !query.key?("direction")
          query["direction"] = "desc"
          changed = true
        end
        if path.delete_suffix("/") == "/metrics" && !query.key?("format") && !scraper?(env)
          query["format"] = "html"
          changed = true
        end
        changed ? env.merge("QUERY_STRING" => Rack::Utils.build_query(query)) : env
      end

      def scraper?(env) = env["HTTP_ACCEPT"].to_s.match?(%r{text/plain|application/openmetrics-text})

      def stats
        stats = Sidekiq::Stats.new
        redis = API.new(@config || Deckhand.config).redis_info.to_h
        {"sidekiq" => {"processed" => stats.processed, "failed" => stats.failed, "busy" => stats.workers_size,
                       "processes" => stats.processes_size, "enqueued" => stats.enqueued, "scheduled" => stats.scheduled_size,
                       "retries" => stats.retry_size, "dead" => stats.dead_size, "default_latency" => stats.default_queue_latency},
         "redis" => redis, "server_utc_time" => Time.now.utc.strftime("%H:%M:%S UTC")}
      end

      def json(body) = [200, {"content-type" => "application/json", "cache-control" => "private, no-store"}, [JSON.generate(body)]]
    end
  end
end
