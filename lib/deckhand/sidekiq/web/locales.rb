# frozen_string_literal: true

require "set"

module Deckhand
  module DropIn
    # The strings of Sidekiq Web extensions' locale folders (`<dir>/<lang>.yml`,
    # `{lang => {key => text}}`), read once per set of folders and language.
    # Locale files are an extension's own source, read with YAML.safe_load
    # (plain Strings and Hashes only).
    #
    #   WebLocales.strings(["/gems/sidekiq-cron/web/locales"], "de")   # => {"Cron" => "Cron", ...}
    #   WebLocales.available(["/gems/sidekiq-cron/web/locales"])       # => #<Set: {"en", "de", ...}>
    module WebLocales
      @lock = Mutex.new
      @cache = {}

      module_function

      def files(dirs) = cached([:files, dirs]) { dirs.flat_map { |dir| Dir[File.join(dir, "*.yml")].sort } }

      def available(dirs) = cached([:available, dirs]) { Set.new(files(dirs).map { |file| File.basename(file, ".yml") }) }

      # Later folders override earlier ones, as they were added.
      def strings(dirs, lang)
        cached([:strings, dirs, lang]) do
          files(dirs).select { |file| File.basename(file, ".yml") == lang }.each_with_object({}) do |file, all|
            table = parse(file)
            texts = table.is_a?(Hash) && table[lang]
            all.merge!(texts) if texts.is_a?(Hash)
          end
        end
      end

      # One file's table as YAML reads it.
      def parse(file)
        require "yaml"
        YAML.safe_load(File.read(file, encoding: "UTF-8"))
      end

      # Forgets what was read (a folder added or changed).
      def clear = @lock.synchronize { @cache.clear }

      def cached(key)
        key = key.map { |part| part.is_a?(Array) ? part.dup.freeze : part }
        found = @lock.synchronize { @cache[key] }
        return found if found
        value = yield
        @lock.synchronize { @cache[key] = value }
      end
    end
  end
end
