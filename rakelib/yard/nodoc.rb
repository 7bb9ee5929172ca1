# frozen_string_literal: true

# YARD reads RDoc's `:nodoc:` as a plain comment. Deckhand marks what is
# internal with it (docs/internals.md, "The public surface, and what is
# internal"), so the reference and its check (`rake doc:check`) leave out
# what RDoc leaves out: an object whose line of definition says `:nodoc:`,
# and everything inside a namespace whose line says `:nodoc: all`.
#
#   # .yardopts
#   --load rakelib/yard/nodoc.rb
#   --query 'DeckhandNodoc.shown?(object)'
module DeckhandNodoc
  MARK = /#\s*:nodoc:(?<all>\s+all\b)?/

  module_function

  def shown?(object)
    return false if marked?(object, all: false)
    return false if !object.is_a?(YARD::CodeObjects::NamespaceObject) && marked?(object.namespace, all: false)
    namespace = object.namespace
    until namespace.nil? || namespace.root?
      return false if marked?(namespace, all: true)
      namespace = namespace.namespace
    end
    true
  end

  # A class reopened in many files is hidden when any of its definitions
  # carries the mark, as RDoc reads it.
  def marked?(object, all:)
    return false unless object.respond_to?(:files)
    object.files.any? do |file, line|
      mark = line && source(file)[line - 1]&.match(MARK)
      mark && (!all || mark[:all])
    end
  end

  def source(file)
    path = File.expand_path(file, File.expand_path("../..", __dir__))
    (@sources ||= {})[file] ||= File.exist?(path) ? File.readlines(path) : []
  end
end
