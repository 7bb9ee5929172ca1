# frozen_string_literal: true

require_relative "locales"

module Sidekiq
  # The language helpers of Sidekiq::WebHelpers: which of the extensions'
  # languages a request gets (the session's choice, else the best match of
  # Accept-Language, else English) and `t`, a string in it. The includer
  # provides `settings.locales` (folders), `env` and `session`.
  #
  #   t("Cron")                   # => "Cron", or its translation
  #   t("Next in %{n}", n: 5)
  module WebLocaleHelpers
    def strings(lang) = Deckhand::DropIn::WebLocales.strings(settings.locales, lang)

    def locale_files = Deckhand::DropIn::WebLocales.files(settings.locales)

    def available_locales = Deckhand::DropIn::WebLocales.available(settings.locales)

    def find_locale_files(lang) = locale_files.select { |file| File.basename(file, ".yml") == lang }

    # A locale file's table, {lang => {key => text}}, read as YAML (plain
    # Strings and Hashes only).
    def parse_yaml(path) = Deckhand::DropIn::WebLocales.parse(path)

    # The language's own name, from its locale file ("Português" for pt),
    # else the locale itself.
    def language_name(locale) = strings(locale).fetch("LanguageName", locale)

    # The files are read again on next use.
    def clear_caches = Deckhand::DropIn::WebLocales.clear

    # Accept-Language's languages, lower case, most wanted first ("*" left out).
    def user_preferred_languages
      entries = env["HTTP_ACCEPT_LANGUAGE"].to_s.downcase.gsub(/\s+/, "").split(",").map do |entry|
        language, quality = entry.split(";q=", 2)
        [(language == "*") ? nil : language, quality ? quality.to_f : 1.0]
      end
      entries.each_with_index.sort_by { |(_, quality), index| [-quality, index] }.filter_map { |(language, _), _| language }
    end

    def locale
      @locale ||= session_locale || preferred_locale || "en"
    end

    def get_locale = strings(locale)

    def text_direction = get_locale["TextDirection"] || "ltr"

    def rtl? = text_direction == "rtl"

    def t(msg, options = {})
      text = get_locale[msg] || strings("en")[msg] || msg
      options.empty? ? text : text % options
    end

    private

    def session_locale
      chosen = session&.fetch(:locale, nil)
      chosen if available_locales.include?(chosen)
    end

    # The language of the first wanted that a locale file names, as the
    # Sidekiq version matches it (DropIn::Version#locale_by_region?):
    #
    # - Sidekiq 8: the first whose language and region a file names, case
    #   aside ("pt-BR" for pt-br; "en-GB-oxendict" is en-gb), else the first
    #   whose bare language one names ("pt" for pt-pt; "ja" for
    #   zh-HK,ja-JP without a zh file);
    # - Sidekiq 7.3: for each wanted in turn, its own file, else the
    #   shortest of its language's ("pt-pt" gets pt, "en-us,sv" en).
    def preferred_locale
      wanted = user_preferred_languages
      known = available_locales.to_a
      return by_language_family(wanted, known) unless Deckhand::DropIn.version.locale_by_region?
      [->(tag) { tag.split("-").first(2).join("-") }, ->(tag) { tag.split("-", 2).first }].each do |trim|
        wanted.each do |tag|
          found = known.find { |locale| locale.casecmp?(trim.call(tag)) }
          return found if found
        end
      end
      nil
    end

    def by_language_family(wanted, known)
      wanted.each do |tag|
        tag = tag.downcase
        family = known.select { |locale| locale.split("-", 2).first.casecmp?(tag.split("-", 2).first) }
        found = family.find { |locale| locale.casecmp?(tag) } || family.min_by(&:length)
        return found if found
      end
      nil
    end
  end
end
