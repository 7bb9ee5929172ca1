# frozen_string_literal: true

module ChunksBench
  # The pg gem is no dependency of Deckhand's bundle: bench/chunks.rb
  # installs it under tmp/pg-gem (`gem install pg --install-dir tmp/pg-gem`)
  # and its processes load it from there, beside the bundle.
  module PgLoader
    DIR = File.expand_path("../../../tmp/pg-gem", __dir__)

    module_function

    def require_pg
      require "pg"
    rescue LoadError
      spec = Dir[File.join(DIR, "specifications", "pg-*.gemspec")].max or
        raise LoadError, "bench/chunks.rb needs the pg gem: gem install pg --install-dir #{DIR}"
      $LOAD_PATH.unshift(*Gem::Specification.load(spec).full_require_paths)
      require "pg"
    end

    def install!
      return if Dir[File.join(DIR, "specifications", "pg-*.gemspec")].any?
      system(Gem.ruby, "-S", "gem", "install", "pg", "--install-dir", DIR, "--no-document", exception: true)
    end
  end
end
