# frozen_string_literal: true

require_relative "router"
require_relative "action"

module Sidekiq
  # Where Sidekiq Web extensions add their routes, helpers and hooks, in
  # drop-in mode: `Sidekiq::Web.register(MyExtension)` calls
  # `MyExtension.registered(Sidekiq::WebApplication)`. Routes serve inside
  # Deckhand's dashboard (WebExtensionRoutes), before its own pages.
  #
  #   module MyExtension
  #     def self.registered(app)
  #       app.helpers(MyHelpers)
  #       app.before("/reports*") { halt(403) unless session[:admin] }
  #       app.get("/reports") { erb(File.read(REPORTS_ERB)) }
  #     end
  #   end
  class WebApplication
    extend WebRouter

    class << self
      def settings = Sidekiq::Web.settings

      def tabs = Sidekiq::Web.tabs

      # Sidekiq keeps it for older extensions, and so does nothing with it.
      def set(_key, _value) = nil

      def helpers(mod = nil, &block)
        block ? WebAction.class_eval(&block) : WebAction.include(mod)
      end

      # path: a pattern where * matches anything; nil for every request.
      def before(path = nil, &block) = befores << [pattern(path), block]

      def after(path = nil, &block) = afters << [pattern(path), block]

      def befores = @befores ||= []

      def afters = @afters ||= []

      def run_befores(app, action) = run_hooks(befores, app, action)

      def run_afters(app, action) = run_hooks(afters, app, action)

      def run_hooks(hooks, app, action)
        path = action.env[WebRouter::PATH_INFO].to_s
        hooks.each { |matcher, block| action.instance_exec(action.env, app, &block) if matcher.nil? || matcher.match?(path) }
      end

      private

      def pattern(path) = path && Regexp.new("\\A#{path.split("*", -1).map { |part| Regexp.escape(part) }.join(".*")}\\z")
    end
  end
end
