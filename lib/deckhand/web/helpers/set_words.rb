# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # The words of the retry, scheduled and dead sets' pages that depend on
      # the set and its filter, in the page's language.
      #
      #   action_labels   # => {"retry" => "Retry now", "delete" => "Delete", "kill" => "Kill"}
      #   filter_words(API::SetFilter.new(error: "Net::ReadTimeout", text: "acme"))
      #   # => "with error Net::ReadTimeout, that contain “acme”"
      module SetWords
        # A scheduled job is enqueued now; a retry or a dead job is retried now.
        def action_labels
          {"retry" => (@name == "scheduled") ? t("sets.enqueue_now") : t("sets.retry_now"), "delete" => t("common.delete"), "kill" => t("sets.kill")}
        end

        # What a filter keeps, as plain text (the page escapes it).
        def filter_words(filter)
          parts = []
          parts << locale.t("filter.error", error: filter.error) unless filter.error.empty?
          parts << locale.t("filter.job_class", name: filter.job_class) unless filter.job_class.empty?
          parts << locale.t("filter.wrapped", name: filter.wrapped) unless filter.wrapped.empty?
          parts << locale.t("filter.text", text: filter.text) unless filter.text.empty?
          parts.join(locale.text("filter.and"))
        end
      end
    end
  end
end
