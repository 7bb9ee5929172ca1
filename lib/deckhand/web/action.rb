# frozen_string_literal: true

require "securerandom"
require "json"
require_relative "views"
require_relative "helpers/format"
require_relative "helpers/links"
require_relative "helpers/charts"
require_relative "helpers/live"
require_relative "helpers/queue_state"
require_relative "helpers/texts"
require_relative "locale_choice"
require_relative "../locale"

module Deckhand
  class Web
    # One request to one page: the base of the page classes under web/pages/.
    # Holds what the templates need (the API, the nonce, the CSRF token) and
    # reads parameters within bounds, so no query string makes Redis do more
    # than a page's worth of work.
    #
    #   class Pages::Example < Action
    #     def show
    #       @section = "example"
    #       @page = int_param("page", 1, 1..1_000)
    #       render :example
    #     end
    #   end
    class Action
      include Views
      include Helpers::Format
      include Helpers::Links
      include Helpers::Charts
      include Helpers::Live
      include Helpers::QueueState
      include Helpers::Texts

      PER_PAGE = [10, 25, 50, 100].freeze
      MAX_PAGE = 2**40
      # The notices an action may leave for the next page (texts notice.*).
      NOTICES = %w[retried deleted killed cleared paused resumed class_paused class_resumed quieted stopped gone
        unlocked not_locked cancelled cancelled_waiting changed not_in_sets].freeze

      # The notice of each outcome of API#cancel: a job that left the
      # place the page showed may have been taken out elsewhere, or be gone.
      CANCEL_NOTICES = Hash.new("cancelled_waiting").merge(cancelling_running: "cancelled", not_found: "gone").freeze

      attr_reader :request, :params, :nonce

      def initialize(web, request, params)
        @web = web
        @request = request
        @params = params
        # A nonce the host chose for this request (Sidekiq::Web's
        # env[:csp_nonce] in drop-in mode, whose policy names it) is the page's.
        @nonce = request.env[:csp_nonce] || SecureRandom.base64(16)
      end

      def api = @api ||= API.new(@web.config)

      # Redis' time, once per request: what "5 s ago" on the page counts from.
      def fleet_time = @fleet_time ||= api.now

      def can_act? = @web.authorized?(@request.env)

      def script_name = @request.script_name

      def csrf_token = @csrf_token ||= Web.csrf_cookie(@request) || SecureRandom.hex(32)

      def h(value) = Template.escape(value)

      def html(markup) = Template::SafeHtml.new(markup)

      # The page inside the layout, with the security headers and the CSRF cookie.
      def render(template, status: 200, title: nil)
        @title = title
        @content = render_template(template)
        body = render_template(:layout)
        headers = Headers.page(@nonce).merge("content-language" => locale.code)
        Web.set_csrf_cookie(headers, @request, csrf_token)
        locale_choice.remember(headers)
        Flash.clear(headers, @request)
        [status, headers, [body]]
      end

      # What Web#extension adds: tabs after the dashboard's own, rows on a job's page.
      def extension_tabs = @web.extension&.tabs(@request) || []

      def extension_rows(entry, set) = @web.extension&.job_rows(entry, set) || []

      def json(data) = [200, Headers.json(@nonce), [JSON.generate(data)]]

      # After a POST: back to a page, with a notice naming what was done,
      # shown once on that page (Flash), not kept in its URL.
      # paused: how many of the jobs went to a paused queue (said on the notice).
      def redirect_to(location, notice: nil, count: nil, paused: 0)
        headers = Headers.text(@nonce).merge("location" => location)
        Flash.write(headers, @request, notice, count, paused) if notice
        [303, headers, ["See #{location}"]]
      end

      def not_found(what) = [404, Headers.text(@nonce), ["Not found: #{what}"]]

      def notice
        name, count, paused = Flash.read(@request)
        return nil unless NOTICES.include?(name)
        text = t("notice.#{name}", count: count)
        paused.to_i.positive? ? html("#{text}. #{paused_warning(paused)}") : text
      end

      # Jobs sent into a paused queue wait there: said where the user acts.
      def paused_warning(count) = t("notice.paused_warning", count: count)

      # An Integer query or form value inside `range`, else `default`.
      def int_param(name, default, range)
        value = Integer(@request.params[name].to_s, 10)
        range.cover?(value) ? value : default
      rescue ArgumentError, TypeError
        default
      end

      def choice_param(name, choices, default)
        value = @request.params[name]
        choices.include?(value) ? value : default
      end

      def text_param(name, max: 200)
        value = @request.params[name]
        value.is_a?(String) ? value.strip[0, max] : ""
      end

      def list_param(name, max: 1000)
        value = @request.params[name]
        value.is_a?(Array) ? value.grep(String).first(max) : []
      end

      def per_page
        value = int_param("per_page", 25, 1..100)
        PER_PAGE.include?(value) ? value : 25
      end

      # The page of a listing of `size` entries the request asks for (its
      # "page" and "per_page"): sets @size, @per_page, @pages (at least one)
      # and @page, within them.
      def paginate(size)
        @size = size
        @per_page = per_page
        @pages = [(size + @per_page - 1) / @per_page, 1].max
        @page = [int_param("page", 1, 1..MAX_PAGE), @pages].min
      end
    end
  end
end
