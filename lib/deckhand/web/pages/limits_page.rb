# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # Limiters (docs/limits.md) used in the last day with their metrics,
      # filtered by name; each throttled queue's limit and use, changed here at
      # run time.
      class LimitsPage < Action # :nodoc:
        ACTIONS = %w[set remove reset].freeze

        def index(status: 200, error: nil)
          @section = "limits"
          @error = error
          @filter = text_param("name", max: 200)
          @limiters = api.limiters(filter: @filter)
          @throttles = api.throttles # the servers' published ones too (API::PublishedThrottles)
          render :limits, status: status, title: t("nav.limits")
        end

        def act
          queue = text_param("queue", max: 500)
          return not_found("queue") if queue.empty?
          throttle = api.throttle(queue)
          case choice_param("action", ACTIONS, nil)
          when "set" then throttle.set(**limits_from_form)
          when "remove" then throttle.remove
          when "reset" then throttle.reset
          else return not_found("action")
          end
          redirect_to(path("limits"))
        rescue ConfigError => e
          index(status: 422, error: e.message)
        end

        private

        def limits_from_form
          limits = {}
          %w[rate concurrency].each do |key|
            value = text_param(key, max: 12)
            limits[key.to_sym] = Integer(value, 10) unless value.empty?
          rescue ArgumentError
            raise ConfigError, "#{key} must be a whole number, got #{value.inspect}"
          end
          per = text_param("per", max: 12)
          limits[:per] = per unless per.empty? || !limits.key?(:rate)
          limits
        end
      end
    end
  end
end
