# frozen_string_literal: true

require "open3"
require "set"

# Fails on a class, module, method or constant of the public surface (the
# files .yardopts names, less what is marked :nodoc:) that has no
# documentation, naming each with its file and line, and on a warning from
# YARD (an `attr_reader(*NAMES)` YARD cannot read hides the settings it
# defines).
#
# The objects listed in rakelib/yard/undocumented.txt are the ones not yet
# documented when the check came in: they are reported as a count, and the
# check fails as soon as one of them is documented (or gone) until it leaves
# the list, so the list only shrinks and nothing new joins it.
#
#   ReferenceCheck.new.run   # => [passed?, report]
class ReferenceCheck
  ROOT = File.expand_path("../..", __dir__)
  OWED = File.join(__dir__, "undocumented.txt")

  # extra: more files to read beside .yardopts' (the check's own test).
  def initialize(extra: [], owed: OWED)
    @extra = extra
    @owed = owed
  end

  def run
    output, status = Open3.capture2e(Gem.ruby, Gem.bin_path("yard", "yard"), "stats", "--list-undoc", "--compact",
      "--no-save", "--no-cache", *@extra, chdir: ROOT)
    return [false, "yard stats failed (#{status}):\n#{output}"] unless status.success?
    judge(output)
  end

  private

  def judge(output)
    warnings = output.lines.grep(/\A\[warn\]/).map(&:strip)
    undocumented = output[/^Undocumented Objects:\n(.*)/m, 1].to_s.lines.map(&:strip).reject(&:empty?)
    names = undocumented.to_h { |line| [line.split(/\s+/).first, line] }
    owed = owed_names
    new_ones = names.keys.reject { |name| owed.include?(name) }
    paid = owed.reject { |name| names.key?(name) }
    problems = []
    problems << "YARD warned (it could not read what these define):\n  #{warnings.join("\n  ")}" unless warnings.empty?
    problems << "undocumented in the public surface:\n  #{new_ones.map { |name| names[name] }.join("\n  ")}" unless new_ones.empty?
    problems << "documented or gone, so remove them from #{relative(@owed)}:\n  #{paid.join("\n  ")}" unless paid.empty?
    summary = output[/^Files:.*?documented$/m].to_s
    report = [summary, "#{owed.size - paid.size} listed in #{relative(@owed)} still to document", *problems].join("\n\n")
    [problems.empty?, report]
  end

  def owed_names
    return Set.new unless File.exist?(@owed)
    File.readlines(@owed, chomp: true).reject { |line| line.empty? || line.start_with?("#") }.to_set
  end

  def relative(path) = path.delete_prefix("#{ROOT}/")
end
