# frozen_string_literal: true

module Deckhand
  class Web
    # The language of a request's page: the one picked (`?locale=de`, then
    # remembered in the `deckhand_locale` cookie), else the Rack session's
    # `:locale` (where drop-in mode's /change_locale keeps Sidekiq's
    # choice), else the best of the browser's Accept-Language, else
    # English. Only the codes there are texts for are taken from any of
    # them, so nothing a request sends reaches a page or a cookie unchecked.
    #
    #   choice = LocaleChoice.new(request)
    #   choice.code       # => "fr"
    #   choice.remember(headers)   # sets the cookie when the query picked a new one
    class LocaleChoice
      COOKIE = "deckhand_locale"
      PARAM = "locale"
      YEAR = 365 * 86_400

      def initialize(request)
        @request = request
      end

      def code = @code ||= picked || known(@request.cookies[COOKIE]) || session_choice || Locale.negotiate(@request.get_header("HTTP_ACCEPT_LANGUAGE"))

      # The language the query asked for, when it is one there are texts for.
      def picked = known(@request.GET[PARAM])

      # Keeps a language the query picked for the next pages.
      def remember(headers)
        chosen = picked
        return if chosen.nil? || @request.cookies[COOKIE] == chosen
        cookie = "#{COOKIE}=#{chosen}; path=#{Web.mount(@request).delete(";,")}/; Max-Age=#{YEAR}; SameSite=Lax"
        Flash.add(headers, @request.ssl? ? "#{cookie}; Secure" : cookie)
      end

      private

      def known(value) = (value.is_a?(String) && Locale.known?(value)) ? value : nil

      def session_choice
        session = @request.env["rack.session"]
        chosen = session.respond_to?(:[]) && session[:locale]
        chosen.is_a?(String) ? Locale::Negotiation.new(Locale.names).best(chosen.tr("_", "-")) : nil
      rescue # a session store that cannot be read gives no choice
        nil
      end
    end
  end
end
