# frozen_string_literal: true

require "erb"
require "json"
require "rack"
require_relative "helpers"
require_relative "../paginator"

module Sidekiq
  # What a Web extension's route block runs in, in drop-in mode: the request
  # (params, route_params, url_params, session), the helpers of Sidekiq's
  # templates (Sidekiq::WebHelpers), and the answers: `erb` renders a page
  # inside Deckhand's dashboard, `json`, `redirect` and `halt` end the request.
  #
  #   app.get("/cron/:name") do
  #     @job = Sidekiq::Cron::Job.find(route_params(:name)) or halt(404)
  #     erb(File.read(File.join(VIEWS, "cron_show.erb")))
  #   end
  class WebAction
    include WebHelpers
    include Paginator

    # Drop-in mode's own partials for the ones of Sidekiq's that extension
    # pages render (`erb :_paging`, `erb :_job_info`), written for Deckhand's dashboard.
    PARTIALS = File.expand_path("../web_partials", __dir__)

    RACK_SESSION = "rack.session"
    # The Deckhand dashboard that lays extension pages out (set by WebExtensionRoutes).
    DASHBOARD = "deckhand.dashboard"

    attr_accessor :env, :block, :type

    # The headers of the page `erb` rendered, its body being `rendered`.
    attr_reader :rendered, :rendered_headers

    def initialize(env, block)
      @env = env
      @block = block
      @_erb = false
    end

    def settings = Web.settings

    def request = @request ||= ::Rack::Request.new(env)

    def halt(res)
      throw :halt, [res, {"content-type" => "text/plain"}, [res.to_s]]
    end

    # location: a path from the site's root, as `"#{root_path}cron"` gives.
    def redirect(location)
      throw :halt, [302, {"location" => "#{request.base_url}#{location}"}, []]
    end

    def reload_page
      redirect(request.referer.to_s.delete_prefix(request.base_url))
    end

    # The query, the form and the route's named segments, with String or Symbol keys.
    def params
      merged = Hash.new { |hash, key| hash[key.to_s] if key.is_a?(Symbol) }
      merged.merge!(request.params)
      route_params.each { |key, value| merged[key.to_s] = value }
      merged
    rescue EOFError, ::Rack::Utils::ParameterTypeError, ::Rack::Utils::InvalidParameterError
      merged
    end

    def url_params(key) = request.params[key]

    def route_params(key = nil)
      values = env[WebRouter::ROUTE_PARAMS] || {}
      key ? values[key] : values
    end

    def session = env[RACK_SESSION]

    # A message for the next page (Sidekiq 8's flash, in the Rack session).
    def flash
      message = yield
      Sidekiq.logger.info(message)
      session[:skq_flash] = message
    end

    def flash? = session&.[](:skq_flash)

    # The message, read once: taken from the session, kept for this request.
    def get_flash = @flash ||= session.delete(:skq_flash)

    # content: ERB source, or a Symbol naming a file in options[:views]
    # (else Sidekiq::Web.views). The first render is laid out in the
    # dashboard; a render inside a template (a partial) is not.
    def erb(content, options = {})
      return evaluate(content, options) if @_erb
      @_erb = true
      lay_out(evaluate(content, options))
    end

    def render(engine, content, options = {})
      raise ArgumentError, "Sidekiq::WebAction#render renders :erb templates only, not #{engine.inspect}" unless engine == :erb
      erb(content, options)
    end

    def json(payload)
      [200, {"content-type" => "application/json", "cache-control" => "private, no-store"}, [JSON.generate(payload)]]
    end

    private

    def evaluate(content, options)
      options[:locals]&.each { |name, value| define_singleton_method(name) { value } }
      source, file = template(content, options[:views])
      instance_eval(source, file, 0)
    end

    def template(content, views)
      return [ERB.new(content.to_s).src, "(erb)"] unless content.is_a?(Symbol)
      file = template_file(content, views || settings.views)
      [ERB.new(File.read(file, encoding: "UTF-8")).src, file]
    end

    # The extension's template, else drop-in mode's partial of that name.
    # Sidekiq 7 names a template name.erb, Sidekiq 8 name.html.erb.
    def template_file(name, views)
      own = views && ["#{name}.erb", "#{name}.html.erb"].map { |file| File.join(views, file) }.find { |path| File.exist?(path) }
      return own if own
      own = views && File.join(views, "#{name}.erb")
      partial = File.join(PARTIALS, "#{name}.erb")
      return partial if File.exist?(partial)
      raise ArgumentError, "erb(#{name.inspect}) needs the folder of its template: erb(#{name.inspect}, views: DIR) or " \
        "Sidekiq::Web.views = DIR (drop-in mode has none of Sidekiq's own templates but _paging and _job_info)#{" (no #{own})" if own}"
    end

    def lay_out(markup)
      dashboard = env[DASHBOARD] or return markup
      page = Deckhand::Web::Pages::ExtensionPage.new(dashboard, request, {})
      tab = Deckhand::DropIn::WebExtension.tab_for(env)
      _, @rendered_headers, body = page.show(markup, section: tab&.last, title: tab&.first || "Extension", head: display_custom_head)
      @rendered = body.first
    end
  end
end
