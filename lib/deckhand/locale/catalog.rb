# frozen_string_literal: true

require_relative "formats"

module Deckhand
  module Locale
    # One language's texts, and its numbers and times (Formats). A key this
    # language lacks reads as the fallback's (English's).
    #
    #   de = Deckhand::Locale["de"]
    #   de.t("nav.dead")                       # => "Tot"
    #   de.t("count.jobs", count: 2)           # => "2 Jobs"
    #   de.text("time.ago")                    # => "vor %{time}": the text before interpolation
    class Catalog
      include Formats

      VARIABLE = /%\{(\w+)\}/

      attr_reader :code, :texts

      def initialize(code, texts, fallback)
        @code = code.freeze
        @texts = texts.freeze
        @fallback = fallback
        freeze
      end

      # The language's own name ("Deutsch"), as its picker shows it.
      def name = text("language")

      # "rtl" for a language written right to left, else "ltr".
      def dir = (text("dir") == "rtl") ? "rtl" : "ltr"

      def rtl? = dir == "rtl"

      def key?(key) = @texts.key?(key) || @fallback&.key?(key) || false

      # The text of `key` before interpolation; for a plural text, the form
      # `count` takes. Raises KeyError for a key no language has.
      def text(key, count = nil)
        value = @texts.fetch(key) { return fallback_text(key, count) }
        return value unless value.is_a?(Hash)
        raise ArgumentError, "#{key} is a plural text: give it count:" if count.nil?
        value.fetch(Plurals.category(@code, count)) { value.fetch("other") }
      end

      # The text with each %{name} replaced by vars[:name] (count: as a
      # number of this language).
      def t(key, **vars)
        count = vars[:count]
        vars = vars.merge(count: number(count)) if count.is_a?(Integer)
        interpolate(text(key, count), vars, key)
      end

      # `template`'s %{name}s, each replaced by the block's (or vars') value.
      def interpolate(template, vars, key = nil)
        template.gsub(VARIABLE) do
          name = Regexp.last_match(1).to_sym
          value = vars.fetch(name) { raise KeyError, "#{key || template.inspect} wants %{#{name}}" }
          block_given? ? yield(value) : value.to_s
        end
      end

      private

      def fallback_text(key, count)
        raise KeyError, "no text for #{key.inspect} in #{@code}" unless @fallback
        @fallback.text(key, count)
      end
    end
  end
end
