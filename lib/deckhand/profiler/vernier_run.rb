# frozen_string_literal: true

require "tmpdir"
require "fileutils"

module Deckhand
  class Profiler
    # One job under Vernier (Ruby 3.2.1 and later): its Firefox Profiler
    # format, gzipped, which Vernier writes to a file of its own (the name
    # ends .json.gz, so Vernier compresses it) in VERNIER_OUTPUT_DIR or the
    # system's temporary folder, removed once read.
    #
    #   result, data, seconds = VernierRun.new(mode: :wall).call { job.perform }
    class VernierRun
      DEFAULTS = {mode: :wall}.freeze

      def initialize(options)
        @options = DEFAULTS.merge(options)
      end

      def call(&block)
        dir = ENV.fetch("VERNIER_OUTPUT_DIR") { Dir.tmpdir }
        path = File.join(dir, "deckhand-profile-#{::Process.pid}-#{Thread.current.object_id}-#{rand(1 << 32)}.json.gz")
        started = Deckhand::Monotonic.now
        result = ::Vernier.profile(**@options, out: path, &block)
        elapsed = Deckhand::Monotonic.now - started
        [result, File.binread(path), elapsed]
      ensure
        FileUtils.rm_f(path) if path
      end
    end
  end
end
