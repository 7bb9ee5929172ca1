# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # The page's words, in the request's language (Web::LocaleChoice, the
      # texts in Deckhand::Locale). A text is escaped like everything else a
      # page shows, and so is each value put into it, but a SafeHtml value
      # (a link the page built) goes in as markup.
      #
      #   t("nav.queues")                                     # => "Queues"
      #   t("count.jobs", count: 3)                           # => "3 jobs"
      #   t("dashboard.unworked", queue: link, jobs: "1 job") # the link kept as a link
      module Texts
        def locale_choice = @locale_choice ||= LocaleChoice.new(@request)

        def locale = @locale ||= Locale[locale_choice.code]

        def t(key, **vars)
          count = vars[:count]
          vars = vars.merge(count: locale.number(count)) if count.is_a?(Integer)
          template = Template.escape(locale.text(key, count))
          Template::SafeHtml.new(locale.interpolate(template, vars, key) { |value| Template.escape(value) })
        end

        # The picker's choices: [[code, its own name, chosen?], ...].
        def locale_options = Locale.names.map { |code| [code, Locale[code].name, code == locale.code] }

        # The query of this page but its language, for the picker's form to keep.
        def locale_kept_params = @request.GET.select { |name, value| name != LocaleChoice::PARAM && value.is_a?(String) }
      end
    end
  end
end
