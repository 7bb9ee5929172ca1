# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # What every page answers (503) while Redis does not: the reason, with
      # the navigation and the jid search, rendered without touching Redis.
      #
      #   Pages::UnreachablePage.new(web, request, {}).show(error)  # => [503, headers, [html]]
      class UnreachablePage < Action # :nodoc:
        def show(error)
          @bare = true
          @message = "Redis is unreachable, so the dashboard has nothing to show: #{error.message}. " \
            "Pages work again as soon as it answers; reload to try."
          render :gone, status: 503, title: "Redis is unreachable"
        end
      end
    end
  end
end
