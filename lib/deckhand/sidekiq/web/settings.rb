# frozen_string_literal: true

require "rack"

module Deckhand
  module DropIn
    # Sidekiq::Web's settings and extension registry, in drop-in mode: what
    # plugins (sidekiq-cron's, sidekiq-unique-jobs' pages ...) call at boot.
    #
    #   Sidekiq::Web.register(MyExtension, name: "reports", tab: "Reports", index: "reports",
    #     root_dir: File.expand_path(".", __dir__), asset_paths: ["css", "js"])
    #   Sidekiq::Web.tabs["Cron"] = "cron"
    #   Sidekiq::Web.locales << File.expand_path("../locales", __dir__)
    #   Sidekiq::Web.custom_job_info_rows << LogLinks.new   # add_pair(job) { |name, html| }
    #   Sidekiq::Web.app_url = "/"                          # a "Back to App" link
    module WebSettings
      # Deckhand's pages at Sidekiq's tab names (the dead set answers at morgue too).
      DEFAULT_TABS = {"Dashboard" => "", "Busy" => "busy", "Queues" => "queues", "Retries" => "retries",
                      "Scheduled" => "scheduled", "Dead" => "morgue", "Metrics" => "metrics"}.freeze

      # Firefox Profiler's: where Sidekiq 8's dashboard uploads a profile to
      # view it (Deckhand's does so only when a person clicks View).
      PROFILE_VIEWER = {
        profile_view_url: "https://profiler.firefox.com/public/%s",
        profile_store_url: "https://api.profiler.firefox.com/compressed-store"
      }.freeze

      def configure = yield(self)

      def settings = self

      def default_tabs = DEFAULT_TABS

      # Label => index path, shown after the dashboard's own tabs.
      def custom_tabs = @custom_tabs ||= {}

      alias_method :tabs, :custom_tabs

      def custom_job_info_rows = @custom_job_info_rows ||= []

      # Folders of <lang>.yml files; Deckhand's own pages are in English.
      def locales = @locales ||= []

      # Where `erb(:name)` finds name.erb when an action gives no `views:`.
      attr_accessor :views, :app_url
      attr_writer :locales

      def enable(*keys) = keys.each { |key| set(key, true) }

      def disable(*keys) = keys.each { |key| set(key, false) }

      def set(attribute, value) = public_send(:"#{attribute}=", value)

      # Sidekiq 8's Web options (Sidekiq::Web::Config#[]): the profile
      # viewer's addresses (Deckhand's Profiles page reads them) and any
      # key a plugin keeps there.
      def [](key) = web_options[key.to_sym]

      def []=(key, value)
        web_options[key.to_sym] = value
      end

      def web_options = @web_options ||= PROFILE_VIEWER.dup

      # extension.registered(Sidekiq::WebApplication) adds its routes; tab
      # and index name its tabs; root_dir/locales its strings; root_dir/assets
      # /<name>/<path> of asset_paths is served at <mount>/<name>/<path>.
      def register(extension, name: nil, tab: nil, index: nil, root_dir: nil, cache_for: 86_400, asset_paths: nil)
        Array(tab).zip(Array(index)).each { |label, path| custom_tabs[label] = path }
        if root_dir
          dir = File.join(root_dir, "locales")
          locales << dir if File.directory?(dir)
          serve_assets(File.join(root_dir, "assets"), name, asset_paths, cache_for) if name && asset_paths
        end
        yield self if block_given?
        extension.registered(Sidekiq::WebApplication)
      end

      # Sidekiq 8's name for it, which extensions written for both call when present.
      alias_method :register_extension, :register

      private

      def serve_assets(root, name, paths, cache_for)
        options = {urls: Array(paths).map { |path| "/#{name}/#{path}" }, root: root, cascade: true}
        options[:header_rules] = [[:all, {"cache-control" => "private, max-age=#{cache_for.to_i}"}]] if cache_for
        use(Rack::Static, options)
      end
    end
  end
end
