# frozen_string_literal: true

require "open3"
require "tmpdir"

# Fails on a class, module, method or constant of the public surface (the
# files .yardopts names, less what is marked :nodoc:) that has no
# documentation, naming each with its file and line, and on a warning from
# YARD (an `attr_reader(*NAMES)` YARD cannot read hides the readers it
# defines from the reference and from this check).
#
# `yard stats --list-undoc` alone counts as documented a method whose only
# documentation is what YARD infers: `@return [Boolean]` for a name ending
# in `?`, `@raise` for a method that raises. This check asks for words of
# our own there too. It leaves out `initialize` (the class's own comment,
# with its usage example, says how to build one) and the writer of an
# attribute whose reader is documented (YARD shows the pair as one).
#
#   passed, report = ReferenceCheck.new.run
class ReferenceCheck
  ROOT = File.expand_path("../..", __dir__)

  # extra: more files to read beside .yardopts' (the check's own test).
  def initialize(extra: [])
    @extra = extra
  end

  def run
    yard = yard_executable or return [false, "the API reference check needs the yard gem: it is in the Gemfile's " \
      "development group (and gemfiles/current.gemfile's); run bundle install"]
    Dir.mktmpdir("deckhand-yardoc") do |db|
      output, status = Open3.capture2e(Gem.ruby, yard, "stats", "--list-undoc", "--compact",
        "--no-cache", "--db", db, *@extra, chdir: ROOT)
      return [false, "yard stats failed (#{status}):\n#{output}"] unless status.success?
      judge(output, db)
    end
  end

  private

  def judge(output, db)
    warnings = output.lines.grep(/\A\[warn\]/).map(&:strip)
    undocumented = output[/^Undocumented Objects:\n(.*)/m, 1].to_s.lines.map(&:strip).reject(&:empty?)
    listed = undocumented.map { |line| line.split(/\s+/).first }
    wordless = wordless(db).reject { |object| listed.include?(object.path) }
      .map { |object| "#{object.path}  (#{object.file}:#{object.line}: only what YARD infers)" }
    problems = []
    problems << "YARD warned (it could not read what these define):\n  #{warnings.join("\n  ")}" unless warnings.empty?
    missing = undocumented + wordless
    problems << "undocumented in the public surface:\n  #{missing.join("\n  ")}" unless missing.empty?
    [problems.empty?, [output[/^Files:.*?documented$/m].to_s, *problems].join("\n\n")]
  end

  # Public objects with no words of their own: no docstring text, and no
  # tag with text (a bare `@return [Boolean]` YARD added).
  def wordless(db)
    require "yard"
    require_relative "nodoc"
    YARD::Registry.clear
    YARD::Registry.load!(db)
    YARD::Registry.all.select do |object|
      DeckhandNodoc.shown?(object) && public?(object) && object.name != :initialize && !paired_writer?(object) &&
        object.docstring.to_s.strip.empty? && object.docstring.tags.all? { |tag| tag.text.to_s.strip.empty? }
    end.sort_by(&:path)
  ensure
    YARD::Registry.clear
  end

  # Bundler raises Gem::Exception for a gem outside the bundle, RubyGems a
  # Gem::MissingSpecError (a LoadError) for one not installed.
  def yard_executable
    Gem.bin_path("yard", "yard")
  rescue Gem::Exception, Gem::MissingSpecError
    nil
  end

  def public?(object) = !object.respond_to?(:visibility) || object.visibility == :public

  def paired_writer?(object)
    return false unless object.is_a?(YARD::CodeObjects::MethodObject) && object.writer?
    reader = object.namespace.child(name: object.name.to_s.delete_suffix("=").to_sym, scope: object.scope)
    !reader.nil? && !reader.docstring.blank?
  end
end
