# frozen_string_literal: true

module Conformance
  module Plugins
    # The Sidekiq plugins whose own test suites bin/conformance --plugin runs,
    # against the sidekiq gem and against drop-in mode, each the same way.
    # Each names its version, where its tests are (a release of the gem
    # ships them, or its repository at the release's tag), its test files,
    # and the changes its test helper needs to run here at all, made in
    # both runs alike (a copy is changed, never the source given).
    #
    #   plugin = Catalog.fetch("rspec-sidekiq")
    #   plugin.version   # => "5.3.0"
    #   plugin.runner    # => :rspec
    # `uses`: other plugins of the catalog its tests load (their source
    # tree's lib/ goes on the load path), where the gem would pull in
    # sidekiq with it.
    Plugin = Struct.new(:name, :version, :repository, :runner, :files, :adapt, :in_gem, :why, :uses, keyword_init: true) do
      def folder = "#{name}-#{version}"

      def tag = "v#{version}"

      # How to get the source tree when it is not there yet.
      def fetch_hint
        return "gem fetch #{name} -v #{version} && gem unpack #{name}-#{version}.gem" if in_gem
        "git clone --depth 1 --branch #{tag} #{repository} #{folder}"
      end
    end

    module Catalog
      # Where a test helper finds out which Sidekiq it runs with: RubyGems'
      # list of installed gems, which holds no sidekiq in drop-in mode (no
      # application's does either). Sidekiq::VERSION says the same for the
      # sidekiq gem and answers for drop-in mode.
      GEM_PROBE = /Gem::Dependency\.new\("sidekiq", "(>= [\d.]+)"\)\.matching_specs\.any\?/
      VERSION_CHECK = 'Gem::Requirement.new("\1").satisfied_by?(Gem::Version.new(Sidekiq::VERSION))'

      PLUGINS = [
        Plugin.new(
          name: "rspec-sidekiq", version: "5.3.0", repository: "https://github.com/wspurgin/rspec-sidekiq",
          runner: :rspec, files: "spec/**/*_spec.rb", in_gem: false,
          why: "the RSpec matchers most Sidekiq shops test their jobs with",
          adapt: {"spec/spec_helper.rb" => [[GEM_PROBE, VERSION_CHECK]]}
        ),
        Plugin.new(
          name: "sidekiq-status", version: "3.0.3", repository: "https://github.com/kenaniah/sidekiq-status",
          runner: :rspec, files: "spec/lib/**/*_spec.rb", in_gem: true,
          why: "job progress through client and server middleware, a server started with Sidekiq::CLI, a Web tab",
          # Its web spec names Base64, which the Rack and Sidekiq of its day loaded.
          adapt: {"spec/spec_helper.rb" => [[/\A/, "require \"base64\"\n"]]}
        ),
        Plugin.new(
          name: "sidekiq-failures", version: "1.1.0", repository: "https://github.com/mhfs/sidekiq-failures",
          runner: :minitest, files: "test/*_test.rb", in_gem: true,
          why: "the Failures tab: a server middleware beside the retry step, a sorted set of its own read " \
            "through Sidekiq's data API, a Web extension; its tests drive Sidekiq::Processor",
          adapt: {"test/test_helper.rb" => [[%r{url: "redis://127\.0\.0\.1:6379/15"}, 'url: ENV.fetch("REDIS_URL")']]}
        ),
        Plugin.new(
          name: "sidekiq_alive", version: "2.5.0", repository: "https://github.com/arturictus/sidekiq_alive",
          runner: :rspec, files: "spec/**/*_spec.rb", in_gem: false,
          why: "Kubernetes liveness probes: lifecycle events, a capsule and queue of its own, a job that " \
            "reschedules itself, an HTTP server in the Sidekiq process",
          adapt: {}, uses: ["rspec-sidekiq"]
        )
      ].freeze

      def self.names = PLUGINS.map(&:name)

      def self.fetch(name)
        PLUGINS.find { |plugin| plugin.name == name } or
          raise ArgumentError, "no plugin #{name.inspect} in the catalog; known: #{names.join(", ")}"
      end
    end
  end
end
