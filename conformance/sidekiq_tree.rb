# frozen_string_literal: true

require "fileutils"

module Conformance
  # A private copy of a Sidekiq source tree to run its tests against drop-in
  # mode: the user's tree is never written. The copy loses `lib/` (nothing of
  # the real gem may load) and its test helper gets the one adaptation
  # drop-in mode needs: `reset!` builds a fresh Deckhand configuration where
  # it built a Sidekiq::Config, and Rails support is Deckhand's.
  #
  #   tree = SidekiqTree.new("/src/sidekiq-7.3.10").copy_to(dir, drop_in: true)
  #   tree.test_files   # => ["test/api_test.rb", ..., "test/iterable/iterable_test.rb"]
  class SidekiqTree
    HELPER = "test/helper.rb"
    # Sidekiq's reset!, from its `def` to the first `end` at the left margin.
    RESET = /^def reset!\n.*?^end\n/m
    RAILS = /^require "sidekiq\/rails"\n/

    # Closes the previous configuration's connections (the tests build one
    # per test), flushes Redis, installs a new default configuration from
    # REDIS_URL and hands back what Sidekiq.default_configuration gives.
    DROP_IN_RESET = <<~RUBY
      def reset!
        Deckhand.config.store.shutdown if Deckhand.config.instance_variable_defined?(:@store)
        RedisClient.new(url: ENV["REDIS_URL"]).call("flushdb")
        Deckhand.config = Deckhand::Config.new(redis: Deckhand.default_redis)
        cfg = Sidekiq.default_configuration
        cfg[:backtrace_cleaner] = Sidekiq::Config::DEFAULTS[:backtrace_cleaner] if defined?(Sidekiq::Config::DEFAULTS)
        cfg.logger = NULL_LOGGER
        cfg.logger.level = Logger::WARN
        cfg
      end
    RUBY

    # What drop-in mode loads for a Rails application: Rails, Deckhand's
    # Railtie and `queue_adapter = :sidekiq` on Deckhand.
    DROP_IN_RAILS = <<~RUBY
      require "rails"
      require "deckhand/rails"
      require "deckhand/sidekiq/active_job"
    RUBY

    attr_reader :root

    def initialize(source)
      @source = File.expand_path(source)
      helper = File.join(@source, HELPER)
      raise ArgumentError, "#{@source} is not a Sidekiq source tree (no #{HELPER}); give a clone of the sidekiq repository at a release tag (git clone --branch v7.3.10 https://github.com/sidekiq/sidekiq)" unless File.file?(helper)
    end

    def copy_to(dir, drop_in:)
      @root = File.join(dir, File.basename(@source))
      FileUtils.mkdir_p(@root)
      Dir.children(@source).each do |entry|
        next if entry == "lib" || entry == ".git"
        FileUtils.cp_r(File.join(@source, entry), @root)
      end
      adapt_helper if drop_in
      self
    end

    def test_files
      Dir.chdir(@root) { Dir["test/*_test.rb"].sort + Dir["test/*/*_test.rb"].sort }
    end

    # The helper, adapted for drop-in mode; raises if it no longer has the
    # shape this adaptation expects (another Sidekiq version).
    def self.adapt(source)
      raise ArgumentError, "#{HELPER} has no `def reset!` ... `end` to adapt" unless source.match?(RESET)
      raise ArgumentError, "#{HELPER} has no `require \"sidekiq/rails\"` to adapt" unless source.match?(RAILS)
      source.sub(RESET, DROP_IN_RESET).sub(RAILS, DROP_IN_RAILS)
    end

    private

    def adapt_helper
      path = File.join(@root, HELPER)
      File.write(path, self.class.adapt(File.read(path)))
    end
  end
end
