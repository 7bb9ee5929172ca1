# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"
require "tmpdir"

# Deckhand runs on the json Ruby ships (2.6 in Ruby 3.1, the gemspec's
# floor; 2.7 in 3.3), which Rails applications keep locked for years: a
# child without Bundler, whose load path holds Deckhand's other gems but not
# the bundle's json, pushes, fetches and runs jobs and refuses a payload
# nested too deep.
class JsonFloorTest < Minitest::Test
  ROOT = File.expand_path("../../..", __dir__)

  CHILD = <<~RUBY
    require "deckhand"
    require "deckhand/embedded"
    abort "loaded json \#{JSON::VERSION} from \#{$LOADED_FEATURES.find { |f| f.end_with?("/json.rb") }}, not Ruby's own" unless Gem.loaded_specs["json"]&.default_gem?
    class FloorJob
      include Deckhand::Job
      def perform(label, data) = Deckhand.config.store.call("RPUSH", "floor:done", JSON.generate([label, data]))
    end
    Deckhand.config.logger = Logger.new(File::NULL)
    FloorJob.perform_async("one", {"n" => [1, 2.5, nil]})
    FloorJob.perform_bulk([["two", {}], ["three", {}]])
    deep = "[" * 101 + "]" * 101
    begin
      Deckhand::Payload.decode(%({"class":"FloorJob","jid":"a","args":\#{deep}}))
      abort "a payload nested 101 deep was decoded"
    rescue Deckhand::Payload::Decoder::Invalid
    end
    embedded = Deckhand::Embedded.new(Deckhand.config)
    embedded.start
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 20
    sleep 0.02 until Deckhand.config.store.call("LLEN", "floor:done") == 3 || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    embedded.stop
    puts Deckhand.config.store.call("LRANGE", "floor:done", 0, -1).sort.join(" ")
  RUBY

  def test_deckhand_runs_on_rubys_own_json
    skip_on_jruby("the floor is CRuby's default json gem (2.6); JRuby's bundle has json's Java build")
    out, status = Dir.mktmpdir("deckhand-json-floor") do |home|
      paths = %w[redis-client connection_pool].flat_map { |name| Gem.loaded_specs.fetch(name).full_require_paths }
      env = {"RUBYOPT" => (["-I#{ROOT}/lib"] + paths.map { |path| "-I#{path}" }).join(" "), "GEM_HOME" => home, "GEM_PATH" => home,
             "BUNDLE_GEMFILE" => nil, "BUNDLE_BIN_PATH" => nil, "RUBYLIB" => nil, "REDIS_URL" => Deckhand::RedisHarness.url,
             # Bundler 2.5 and newer name bundler/setup here for RubyGems to load at boot.
             "BUNDLER_SETUP" => nil}
      Open3.capture2e(env, RbConfig.ruby, "-w", "-e", CHILD)
    end
    assert status.success?, out
    assert_equal %(["one",{"n":[1,2.5,nil]}] ["three",{}] ["two",{}]).sub("nil", "null"), out.lines.last.chomp
  end

  def test_the_gemspec_takes_that_json
    spec = Gem::Specification.load(File.join(ROOT, "deckhand.gemspec"))
    json = spec.runtime_dependencies.find { |dependency| dependency.name == "json" }
    assert json.requirement.satisfied_by?(Gem::Version.new("2.6.1")), "json #{json.requirement} refuses Ruby 3.1's json 2.6.1"
  end
end
