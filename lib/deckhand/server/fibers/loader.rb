# frozen_string_literal: true

module Deckhand
  module Server
    module Fibers
      # Loads the async gem for a fiber capsule, when a server builds one and
      # never before: a process without fiber capsules does not need the gem.
      #
      #   Fibers::Loader.load!("io")   # raises ConfigError naming the fix when it cannot
      module Loader
        GEM = 'gem "async", ">= 2.21"'
        # From 2.24 async reads IO#timeout (Ruby 3.2) whenever a fiber waits
        # on IO without a timeout of its own: a job's backticks or
        # `socket.gets` would raise NoMethodError on Ruby 3.1.
        BROKEN_ON_RUBY_31 = "2.24"
        GEM_ON_RUBY_31 = %(#{GEM}, "< #{BROKEN_ON_RUBY_31}")

        module_function

        # The Gemfile line to advise on this Ruby: the ceiling only where
        # it is needed, so a Ruby 3.3 application is not held to an old async.
        def gem_line(ruby = RUBY_VERSION) = (Gem::Version.new(ruby) < Gem::Version.new("3.2")) ? GEM_ON_RUBY_31 : GEM

        # `library`: what to require (the async gem; another name in tests).
        def load!(capsule, library: "async", ruby: RUBY_VERSION)
          if RUBY_ENGINE == "jruby"
            raise ConfigError, "capsule #{capsule}: fiber capsules need CRuby; JRuby builds each fiber on a JVM " \
              "thread (a thousand fibers would cost a thousand threads) and Deckhand does not run async there. " \
              "Remove fibers: true: JRuby's threads run in parallel, and a thread capsule of up to 1000 " \
              "serves I/O-bound jobs there"
          end
          require library
          check_version(capsule, (library == "async") ? ::Async::VERSION : nil, ruby: ruby)
        rescue LoadError => e
          raise ConfigError, "capsule #{capsule}: fibers: true runs its jobs under the async gem's fiber scheduler, " \
            "which is not installed (#{e.message}); add #{gem_line(ruby)} to your Gemfile and run bundle install"
        end

        def check_version(capsule, version, ruby: RUBY_VERSION)
          return if version.nil? || Gem::Version.new(ruby) >= Gem::Version.new("3.2")
          return if Gem::Version.new(version) < Gem::Version.new(BROKEN_ON_RUBY_31)
          raise ConfigError, "capsule #{capsule}: async #{version} does not run on Ruby #{ruby} (it reads IO#timeout, " \
            "which came with Ruby 3.2); use #{GEM_ON_RUBY_31} in your Gemfile, or Ruby 3.2 or later"
        end
      end
    end
  end
end
