# frozen_string_literal: true

module Deckhand
  module Locale
    # Picks, from the languages there are texts for, the one an
    # Accept-Language header wants most (RFC 9110: q-values, 0 meaning "not
    # this one"). A tag matches its own language ("fr-CA" gets "fr", "zh"
    # and "zh-SG" get "zh-CN", Simplified Chinese) except where the written
    # language differs: "zh-TW", "zh-HK" and "zh-Hant" are Traditional
    # Chinese, which there are no texts for, so the next wanted is tried.
    #
    #   Negotiation.new(%w[de en fr zh-CN]).best("fr-CA,fr;q=0.9,en;q=0.5")   # => "fr"
    #   Negotiation.new(%w[de en fr zh-CN]).best("zh-TW,en;q=0.8")           # => "en"
    #   Negotiation.new(%w[de en fr zh-CN]).best("da")                       # => nil
    #
    # A POSIX locale name, as a terminal's environment gives it
    # (language_TERRITORY.codeset@modifier), is matched the same way:
    #
    #   Negotiation.new(%w[de en fr zh-CN]).posix("de_AT.UTF-8")             # => "de"
    #   Negotiation.new(%w[de en fr zh-CN]).posix("zh_TW.UTF-8")            # => nil
    class Negotiation
      # A header longer than this, or with more entries, is read only so far.
      MAX_LENGTH = 1000
      MAX_ENTRIES = 50
      TAG = /\A[a-z]{1,8}(-[a-z0-9]{1,8})*\z/
      QUALITY = /\Aq=(0(\.\d{0,3})?|1(\.0{0,3})?)\z/
      TRADITIONAL = /\Azh-(hant|tw|hk|mo)(-|\z)/
      # language, then _TERRITORY, then .codeset and @modifier (which say nothing of the language).
      POSIX = /\A([A-Za-z]{2,3})(?:[_-]([A-Za-z0-9]{2,8}))?(?:\.[\w-]*)?(?:@\w*)?\z/

      def initialize(names)
        @names = names
      end

      # The best known language, or nil when the header wants none of them.
      def best(header)
        wanted(header).each do |tag|
          found = match(tag)
          return found if found
        end
        nil
      end

      # The known language of a POSIX locale name ("pt_BR.UTF-8"), or nil:
      # for "C" and "POSIX" (which are no language), a language there are no
      # texts for, or a name that is not a locale's.
      def posix(name)
        m = POSIX.match(name.to_s.strip) or return nil
        match([m[1], m[2]].compact.join("-").downcase)
      end

      # The header's tags, lower case, most wanted first (equal q-values in
      # the header's order), without "*" and those refused with q=0.
      def wanted(header)
        entries = header.to_s[0, MAX_LENGTH].split(",").first(MAX_ENTRIES).filter_map.with_index do |entry, index|
          tag, *params = entry.delete(" \t").downcase.split(";")
          next unless tag&.match?(TAG)
          quality = quality(params) or next
          [tag, quality, index] if quality.positive?
        end
        entries.sort_by { |_, quality, index| [-quality, index] }.map(&:first)
      end

      private

      # The q-value, 1 when none is given, nil when it is malformed.
      def quality(params)
        q = params.find { |param| param.start_with?("q=") } or return 1.0
        (m = QUALITY.match(q)) ? m[1].to_f : nil
      end

      def match(tag)
        exact = @names.find { |name| name.casecmp?(tag) }
        return exact if exact
        return nil if tag.match?(TRADITIONAL)
        language = tag.split("-", 2).first
        @names.find { |name| name.split("-", 2).first.casecmp?(language) }
      end
    end
  end
end
