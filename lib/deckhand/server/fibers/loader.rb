# frozen_string_literal: true

module Deckhand
  module Server
    module Fibers
      # Loads the async gem for a fiber capsule, when a server builds one and
      # never before: a process without fiber capsules does not need the gem.
      #
      #   Fibers::Loader.load!("io")   # raises ConfigError naming the fix when it cannot
      module Loader
        GEM = 'gem "async", "~> 2.21"'

        module_function

        # `library`: what to require (the async gem; another name in tests).
        def load!(capsule, library: "async")
          if RUBY_ENGINE == "jruby"
            raise ConfigError, "capsule #{capsule}: fiber capsules need CRuby; JRuby has no fiber scheduler the " \
              "async gem runs on (its io-event is a C extension). Remove fibers: true: a thread capsule " \
              "(up to 1000 threads, real JVM threads) serves I/O-bound jobs there"
          end
          require library
        rescue LoadError => e
          raise ConfigError, "capsule #{capsule}: fibers: true runs its jobs under the async gem's fiber scheduler, " \
            "which is not installed (#{e.message}); add #{GEM} to your Gemfile and run bundle install"
        end
      end
    end
  end
end
