# frozen_string_literal: true

require_relative "errors"
require_relative "locale/plurals"
require_relative "locale/catalog"
require_relative "locale/negotiation"

module Deckhand
  # The languages Deckhand's screens speak, in plain Ruby: the dashboard uses
  # it, and so can anything else that shows text to a person.
  #
  #   require "deckhand/locale"
  #   Deckhand::Locale.names                               # => ["ar", "de", "en", "es", ...]
  #   code = Deckhand::Locale.negotiate("fr-CA,fr;q=0.9,en;q=0.5")   # => "fr"
  #   fr = Deckhand::Locale[code]
  #   fr.t("nav.queues")                                   # => "Files d'attente"
  #   fr.t("count.jobs", count: 1200)                      # => "1 200 tâches" (a narrow no-break space)
  #   fr.duration(3725)                                    # => "1 h 2 min"
  #   Deckhand::Locale["he"].dir                           # => "rtl"
  #   Deckhand::Locale.from_environment("LANG" => "de_DE.UTF-8")   # => "de", as a terminal's shell says it
  #
  # Each language's texts are a YAML file of its own under locale/texts/,
  # read once. A key a language lacks reads as English's.
  module Locale
    DEFAULT = "en"
    DIR = File.expand_path("locale/texts", __dir__)
    # Language codes as their files are named: lower case, two or three letters, a region or script after "-".
    NAME = /\A[a-z]{2,3}(-[A-Za-z0-9]{2,8})?\z/
    # Where a terminal's locale is named, the first set winning (POSIX).
    ENVIRONMENT = %w[LC_ALL LC_MESSAGES LANG].freeze

    @lock = Mutex.new
    @catalogs = {}

    class << self
      # The codes of the languages there are texts for, sorted.
      def names = @names ||= Dir[File.join(DIR, "*.yml")].map { |file| File.basename(file, ".yml") }.grep(NAME).sort.freeze

      def known?(code) = names.include?(code)

      # The Catalog of a known code, else English's.
      def [](code)
        code = DEFAULT unless known?(code)
        fallback = (code == DEFAULT) ? nil : self[DEFAULT]
        @lock.synchronize { @catalogs[code] ||= Catalog.new(code, read(code), fallback) }
      end

      # The best of the known languages for an Accept-Language header, else English.
      def negotiate(accept_language) = Negotiation.new(names).best(accept_language) || DEFAULT

      # The known language of a POSIX locale name ("de_DE.UTF-8" => "de"), or
      # nil ("C", "POSIX", a language there are no texts for).
      def posix(name) = Negotiation.new(names).posix(name)

      # The language a terminal's user reads, from the environment as POSIX
      # says: the first set of LC_ALL, LC_MESSAGES and LANG names it; English
      # when that one is "C", "POSIX" or a language there are no texts for.
      def from_environment(env = ENV)
        name = ENVIRONMENT.lazy.map { |variable| env[variable] }.find { |value| value && !value.empty? }
        posix(name) || DEFAULT
      end

      # A language's texts as its file holds them, keys joined with dots:
      # {"nav.queues" => "Queues", "count.jobs" => {"one" => ..., "other" => ...}}.
      def read(code)
        raise ArgumentError, "no texts for #{code.inspect}: one of #{names.join(", ")}" unless known?(code)
        require "yaml"
        table = YAML.safe_load_file(File.join(DIR, "#{code}.yml"))
        raise Error, "#{DIR}/#{code}.yml should hold {#{code} => {key => text}}" unless table.is_a?(Hash) && table[code].is_a?(Hash)
        flatten(table[code])
      end

      private

      # Nested keys joined with dots; a Hash whose keys are all plural
      # categories is one plural text.
      def flatten(hash, prefix = nil, into = {})
        hash.each do |key, value|
          name = prefix ? "#{prefix}.#{key}" : key.to_s
          if value.is_a?(Hash) && !Plurals.forms?(value) then flatten(value, name, into)
          else into[name] = value.freeze
          end
        end
        into
      end
    end
  end
end
