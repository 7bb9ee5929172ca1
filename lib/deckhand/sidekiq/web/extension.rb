# frozen_string_literal: true

require "deckhand/web"

module Deckhand
  module DropIn
    # What Sidekiq Web extensions add to Deckhand's dashboard in drop-in
    # mode (Deckhand::Web's `extension:`): their tabs after the dashboard's
    # own (Sidekiq::Web.tabs, translated with their locales), "Back to App"
    # when Sidekiq::Web.app_url is set, and the rows of
    # Sidekiq::Web.custom_job_info_rows on a job's page.
    #
    #   Deckhand::Web.new(extension: WebExtension.new)
    #   Sidekiq::Web.tabs["Cron"] = "cron"   # => a "Cron" link to <mount>/cron
    class WebExtension
      # The env key of the dashboard's CSRF cookie token for this request.
      CSRF_TOKEN = Deckhand::Web::Pages::ExtensionPage::CSRF_TOKEN
      ABSOLUTE = %r{\A[a-z][a-z0-9+.-]*://}i

      # [label, href] of the tab whose page env's path is on, or nil.
      def self.tab_for(env)
        first = env["PATH_INFO"].to_s.delete_prefix("/").split("/").first.to_s
        Sidekiq::Web.custom_tabs.each do |label, index|
          next if index.to_s.match?(ABSOLUTE)
          return [label, href(env["SCRIPT_NAME"].to_s, index)] if index.to_s.delete_prefix("/").split("/").first.to_s == first
        end
        nil
      end

      def self.href(script_name, index)
        index = index.to_s
        index.match?(ABSOLUTE) ? index : "#{script_name}/#{index.delete_prefix("/")}"
      end

      def tabs(request)
        helper = Sidekiq::WebAction.new(request.env, nil)
        tabs = Sidekiq::Web.custom_tabs.map { |label, index| [helper.t(label.to_s), self.class.href(request.script_name, index)] }
        app_url = Sidekiq::Web.app_url
        app_url ? tabs << [helper.t("BackToApp").sub("BackToApp", "Back to App"), app_url.to_s] : tabs
      end

      # Each row's value is the extension's HTML, shown as it is (as in Sidekiq).
      def job_rows(entry, set)
        return [] if Sidekiq::Web.custom_job_info_rows.empty?
        job = Sidekiq::SortedEntry.of(entry, set)
        Sidekiq::Web.custom_job_info_rows.each_with_object([]) do |helper, rows|
          helper.add_pair(job) { |name, value| rows << [name.to_s, value.to_s] }
        end
      end
    end
  end
end
