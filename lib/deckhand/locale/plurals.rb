# frozen_string_literal: true

module Deckhand
  module Locale
    # Which plural form a count takes in a language, by the categories of
    # Unicode's plural rules (one, two, few, many, other; zero in Arabic),
    # for whole numbers, which is all the screens count.
    #
    #   Plurals.category("ru", 3)    # => "few"
    #   Plurals.category("ru", 11)   # => "many"
    #   Plurals.categories("ar")     # => ["zero", "one", "two", "few", "many", "other"]
    module Plurals
      CATEGORIES = %w[zero one two few many other].freeze

      ONE = ->(n) { (n == 1) ? "one" : "other" }
      RULES = {
        "en" => ONE, "de" => ONE, "es" => ONE,
        # French and Portuguese count 0 with 1.
        "fr" => ->(n) { (n <= 1) ? "one" : "other" },
        "pt" => ->(n) { (n <= 1) ? "one" : "other" },
        "ja" => ->(_) { "other" }, "zh" => ->(_) { "other" },
        "he" => ->(n) { {1 => "one", 2 => "two"}.fetch(n, "other") },
        "ru" => lambda do |n|
          if n % 10 == 1 && n % 100 != 11 then "one"
          elsif (2..4).cover?(n % 10) && !(12..14).cover?(n % 100) then "few"
          else "many"
          end
        end,
        "ar" => lambda do |n|
          if n <= 2 then %w[zero one two][n]
          elsif (3..10).cover?(n % 100) then "few"
          elsif (11..99).cover?(n % 100) then "many"
          else "other"
          end
        end
      }.freeze

      # The forms each language's plural texts must have.
      FORMS = {
        "en" => %w[one other], "de" => %w[one other], "es" => %w[one other], "fr" => %w[one other], "pt" => %w[one other],
        "ja" => %w[other], "zh" => %w[other], "he" => %w[one two other], "ru" => %w[one few many other],
        "ar" => %w[zero one two few many other]
      }.freeze

      module_function

      def category(code, count) = RULES.fetch(language(code), ONE).call(count.to_i.abs)

      def categories(code) = FORMS.fetch(language(code), %w[one other])

      # True for a Hash that is one plural text ({"one" => ..., "other" => ...}).
      def forms?(hash) = !hash.empty? && hash.key?("other") && hash.keys.all? { |key| CATEGORIES.include?(key) }

      def language(code) = code.to_s.split("-", 2).first
    end
  end
end
