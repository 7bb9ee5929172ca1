# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # A page a host renders itself inside the dashboard's layout (drop-in
      # mode's Sidekiq::Web extensions): its markup as given, the navigation,
      # the security headers. The page's own scripts and styles load when they
      # carry the nonce the host put in env[:csp_nonce], which the policy names.
      #
      #   ExtensionPage.new(web, request, {}).show("<h2>Cron</h2>", section: "/deckhand/cron", title: "Cron")
      #   page.show(markup, section: "/deckhand/cron", title: "Cron", head: %(<link rel="stylesheet" nonce="..." href="...">))
      class ExtensionPage < Action # :nodoc:
        # Where the host keeps the CSRF token its forms carry: the cookie
        # this page sets holds the same one.
        CSRF_TOKEN = "deckhand.csrf_token"

        def initialize(web, request, params)
          super
          nonce = request.env[:csp_nonce]
          @nonce = nonce if nonce.is_a?(String) && nonce.match?(%r{\A[A-Za-z0-9+/=]{16,64}\z})
        end

        def csrf_token = @csrf_token ||= request.env[CSRF_TOKEN] || super

        # head: markup for the page's <head> (its stylesheets, as Sidekiq 8's
        # style_tag adds them), given by the host as it is.
        def show(markup, section:, title:, head: nil)
          @section = section
          @head = html(head.to_s) if head
          @markup = html(markup.to_s)
          render :extension, title: title
        end
      end
    end
  end
end
