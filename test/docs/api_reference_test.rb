# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require_relative "../../rakelib/yard/reference_check"

# `rake doc:check`: the API reference covers the public surface (.yardopts),
# and a public method without documentation fails it by name. Each check
# parses the surface with YARD, a few seconds.
class ApiReferenceTest < Minitest::Test
  def test_the_public_surface_is_documented
    passed, report = ReferenceCheck.new.run

    assert passed, report
    assert_match(/\d+\.\d+% documented/, report)
  end

  # RDoc's reading of :nodoc:, which YARD lacks: a class so marked and its
  # own methods are left out, a class inside it is not; `:nodoc: all` leaves
  # out everything inside. A predicate or a method that raises counts as
  # undocumented without words of its own.
  def test_an_undocumented_public_method_fails_the_check_by_name
    passed, report = check_with(<<~RUBY)
      module Deckhand
        class Client
          def self.probe_without_docs = nil

          def self.probe_predicate? = true

          def self.probe_raising = raise(ArgumentError, "no")

          # Documented.
          def self.probe_with_docs = nil

          class HiddenProbe # :nodoc:
            def hidden_method = nil

            class ShownInside
              def shown_method = nil
            end
          end

          class HiddenAll # :nodoc: all
            class Inner
              def inner_method = nil
            end
          end
        end
      end
    RUBY

    refute passed, report
    assert_match(/^  Deckhand::Client\.probe_without_docs +\(\S+probe\.rb:3\)$/, report)
    # What YARD infers (@return [Boolean], @raise) is no documentation.
    assert_match(/^  Deckhand::Client\.probe_predicate\?  \(\S+probe\.rb:5: only what YARD infers\)$/, report)
    assert_match(/^  Deckhand::Client\.probe_raising  \(\S+probe\.rb:7: only what YARD infers\)$/, report)
    assert_includes report, "Deckhand::Client::HiddenProbe::ShownInside#shown_method"
    %w[probe_with_docs hidden_method HiddenProbe\  HiddenAll inner_method].each { |name| refute_includes report, name }
  end

  private

  def check_with(source)
    Dir.mktmpdir("deckhand-reference") do |dir|
      file = File.join(dir, "probe.rb")
      File.write(file, source)
      ReferenceCheck.new(extra: [file]).run
    end
  end
end
