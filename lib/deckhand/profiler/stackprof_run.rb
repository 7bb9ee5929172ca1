# frozen_string_literal: true

require "json"
require "zlib"

module Deckhand
  class Profiler
    # One job under stackprof (Ruby before 3.2.1, where Vernier does not
    # run): its raw samples as JSON, gzipped, which speedscope opens
    # (Firefox Profiler does not read stackprof's format).
    #
    #   result, data, seconds = StackprofRun.new(mode: :cpu).call { job.perform }
    class StackprofRun
      DEFAULTS = {mode: :wall, raw: true}.freeze

      def initialize(options)
        @options = DEFAULTS.merge(options.slice(:mode, :interval, :raw))
      end

      def call(&block)
        started = Deckhand::Monotonic.now
        result = ::StackProf.run(**@options, &block)
        elapsed = Deckhand::Monotonic.now - started
        [result, Zlib.gzip(JSON.generate(result)), elapsed]
      end
    end
  end
end
