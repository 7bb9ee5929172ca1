# frozen_string_literal: true

require "etc"

module Deckhand
  module Server
    module Balance
      # How many jobs of CPU-bound classes a process can run at once to any
      # use: one on CRuby, whose global lock lets one thread run Ruby at a
      # time; the processors the JVM (or TruffleRuby) sees elsewhere.
      #
      #   Cores.usable   # => 1 on CRuby, Etc.nprocessors on JRuby
      module Cores
        module_function

        def usable(engine = RUBY_ENGINE)
          (engine == "ruby") ? 1 : [Etc.nprocessors, 1].max
        end
      end
    end
  end
end
