# frozen_string_literal: true

module Deckhand
  class Web
    # The notice shown once after an action ("3 jobs deleted"): carried to the
    # next page in a short-lived cookie that page clears, so a reload does not
    # repeat it and the URL stays the page's own. The cookie holds only a
    # notice name, a count and how many of those jobs went to a paused queue,
    # all checked when read.
    #
    #   Flash.write(headers, request, "retried", 3, 1)
    #   Flash.read(request)            # => ["retried", 3, 1] on the next request
    #   Flash.clear(headers, request)  # once shown
    module Flash
      COOKIE = "deckhand_notice"
      SECONDS = 60

      module_function

      def write(headers, request, notice, count, paused = 0)
        value = "#{notice}.#{count.to_i}"
        value = "#{value}.#{paused.to_i}" if paused.to_i.positive?
        add(headers, cookie(request, value, "Max-Age=#{SECONDS}"))
      end

      # [notice, count, paused] or nil; the notice name still has to be a known one.
      def read(request)
        value = request.cookies[COOKIE].to_s
        match = /\A([a-z_]{1,20})\.(\d{1,12})(?:\.(\d{1,12}))?\z/.match(value) or return nil
        [match[1], match[2].to_i, match[3].to_i]
      end

      def clear(headers, request)
        return unless request.cookies.key?(COOKIE)
        add(headers, cookie(request, "", "Max-Age=0"))
      end

      def cookie(request, value, age)
        text = "#{COOKIE}=#{value}; path=#{Web.mount(request).delete(";,")}/; #{age}; HttpOnly; SameSite=Strict"
        request.ssl? ? "#{text}; Secure" : text
      end

      # Rack 3 takes one set-cookie value per array element; Rack 2 joins them with newlines.
      def add(headers, cookie)
        existing = headers["set-cookie"]
        headers["set-cookie"] = if existing.nil? then cookie
        elsif Rack.release.start_with?("2.") then "#{existing}\n#{cookie}"
        else [*existing, cookie]
        end
      end
    end
  end
end
