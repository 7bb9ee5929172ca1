# frozen_string_literal: true

require "json"

module Deckhand
  module DropIn
    # What Sidekiq's dashboard answers at its addresses and Deckhand's does
    # elsewhere, in front of Deckhand's dashboard in drop-in mode: bookmarks,
    # monitors polling /stats and routers mounting it keep working.
    #
    #   WebPaths.new(Deckhand::Web.new).call(env)
    #
    # - /morgue (Sidekiq's dead page) is /dead; `substr=` (Sidekiq's filter) is `q=`.
    # - /stats and /stats/queues answer Sidekiq's JSON; /dashboard/stats redirects to /stats.
    # - A method the dashboard never answers gets 404 with x-cascade: pass, so
    #   a Rack router may try its next route.
    class WebPaths
      METHODS = %w[GET HEAD POST].freeze

      def initialize(app, config: nil)
        @app = app
        @config = config
      end

      def call(env)
        return [404, {"content-type" => "text/plain", Sidekiq::Web::X_CASCADE => "pass"}, ["Not Found"]] unless METHODS.include?(env["REQUEST_METHOD"])
        path = env["PATH_INFO"].to_s
        if env["REQUEST_METHOD"] != "POST"
          case path.delete_suffix("/")
          when "/stats" then return json(stats)
          when "/stats/queues" then return json(Sidekiq::Stats.new.queues)
          when "/dashboard/stats" then return [302, {"location" => "#{Rack::Request.new(env).base_url}#{env["SCRIPT_NAME"]}/stats"}, []]
          end
        end
        @app.call(translate(env, path))
      end

      private

      def translate(env, path)
        env = env.merge("PATH_INFO" => path.sub(%r{\A/?morgue(?=/|\z)}, "/dead"))
        query = Rack::Utils.parse_query(env["QUERY_STRING"].to_s)
        return env unless query.key?("substr") && !query.key?("q")
        query["q"] = query.delete("substr")
        env.merge("QUERY_STRING" => Rack::Utils.build_query(query))
      end

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
