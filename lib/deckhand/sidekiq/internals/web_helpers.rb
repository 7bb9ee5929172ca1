# frozen_string_literal: true

module Sidekiq
  # The helpers of Sidekiq's own dashboard templates, which a Web extension
  # includes. Deckhand's dashboard is its own and has no extension API, so
  # the module can be included (the file that does so loads) and each of its
  # helpers, once called, raises Unsupported saying so.
  #
  #   class MyTab; include Sidekiq::WebHelpers; end
  #   MyTab.new.number_with_delimiter(5)   # => Deckhand::DropIn::Unsupported
  module WebHelpers
    HINT = "Deckhand's dashboard is its own and has no extension API (tabs, templates, their helpers); " \
      "mount your own Rack app beside it for pages of your own"

    private

    # Only names Sidekiq's helpers have (lower case, no operator), so other
    # missing methods still raise NoMethodError.
    def method_missing(name, *args, &block)
      return super unless name.match?(/\A[a-z_][a-z0-9_]*[?!]?\z/)
      raise Deckhand::DropIn::Unsupported.new("Sidekiq::WebHelpers##{name}", HINT)
    end

    def respond_to_missing?(_name, _include_private = false) = false
  end
end
