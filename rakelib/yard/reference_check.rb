# frozen_string_literal: true

require "open3"

# Fails on a class, module, method or constant of the public surface (the
# files .yardopts names, less what is marked :nodoc:) that has no
# documentation, naming each with its file and line, and on a warning from
# YARD (an `attr_reader(*NAMES)` YARD cannot read hides the readers it
# defines from the reference and from this check).
#
#   passed, report = ReferenceCheck.new.run
class ReferenceCheck
  ROOT = File.expand_path("../..", __dir__)

  # extra: more files to read beside .yardopts' (the check's own test).
  def initialize(extra: [])
    @extra = extra
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
    problems = []
    problems << "YARD warned (it could not read what these define):\n  #{warnings.join("\n  ")}" unless warnings.empty?
    problems << "undocumented in the public surface:\n  #{undocumented.join("\n  ")}" unless undocumented.empty?
    [problems.empty?, [output[/^Files:.*?documented$/m].to_s, *problems].join("\n\n")]
  end
end
