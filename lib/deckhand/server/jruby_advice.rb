# frozen_string_literal: true

module Deckhand
  module Server
    # The one JRuby setting that changes a server's speed most and that a
    # gem cannot set itself (the JVM has started by the time Deckhand loads):
    # without invokedynamic, a JRuby server ran no-op jobs at about 55 % of
    # the speed it reached with it (docs/jruby.md). The launcher logs this
    # once at start when it applies.
    #
    #   JRubyAdvice.message                                  # => nil on MRI, or on JRuby with invokedynamic on
    #   JRubyAdvice.message(engine: "jruby", indy: false)    # => "JRuby runs without invokedynamic: ..."
    module JRubyAdvice
      module_function

      def message(engine: RUBY_ENGINE, indy: (invokedynamic? if engine == "jruby"))
        return nil unless engine == "jruby" && indy == false
        "JRuby runs without invokedynamic: set JRUBY_OPTS=-Xcompile.invokedynamic=true " \
          "(or compile.invokedynamic=true in .jrubyrc) for up to about 1.8x the jobs per second on short jobs (docs/jruby.md)"
      end

      # JRuby's own option; nil where it cannot be read (not JRuby, another release).
      def invokedynamic?
        Java::OrgJrubyUtilCli::Options::COMPILE_INVOKEDYNAMIC.load
      rescue NameError
        nil
      end
    end
  end
end
