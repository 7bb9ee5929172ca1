# frozen_string_literal: true

require_relative "../profile_upload"

module Deckhand
  class Web
    module Pages
      # Jobs' profiles (docs/profiling.md): the list, each profile's data to
      # download (gzipped JSON: Vernier's opens in Firefox Profiler,
      # stackprof's in speedscope), and, where a profile viewer is set
      # (Web.profile_viewer), View: the profile uploaded to the viewer's
      # store once, when a person asks, then opened there.
      class ProfilesPage < Action # :nodoc:
        def index
          @section = "profiles"
          @profiles = api.profiles
          @viewer = @web.profile_viewer
          render :profiles, title: t("nav.profiles")
        end

        # The gzipped profile as Sidekiq serves it (content-encoding gzip), so
        # a browser stores the JSON; no other origin may read it.
        def data
          bytes = api.profile(params["key"])&.data or return not_found("profile")
          headers = Headers.json(@nonce).merge("content-encoding" => "gzip",
            "content-disposition" => %(attachment; filename="#{params["key"].delete('"\\\\')}.json"))
          [200, headers, [bytes]]
        end

        def view
          viewer = @web.profile_viewer
          profile = viewer && api.profile(params["key"]) or return go(path("profiles"))
          id = profile.viewer_id || ProfileUpload.new(viewer).call(profile.data).tap { |sid| profile.viewer_id = sid }
          go(format(viewer.fetch(:view_url), id))
        rescue ProfileUpload::Failed => e
          [502, Headers.text(@nonce), [e.message]]
        end

        private

        def go(location) = [302, Headers.text(@nonce).merge("location" => location), []]
      end
    end
  end
end
