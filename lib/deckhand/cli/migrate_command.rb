# frozen_string_literal: true

require "optparse"
require_relative "../../deckhand"
require_relative "../migration/check"
require_relative "config_file"
require_relative "command"

module Deckhand
  class CLI
    # `deckhand migrate --check [APP_ROOT]`: what of a Sidekiq application
    # runs on Deckhand's drop-in mode as is, what needs a change, what is not
    # supported. Reads files only; exits 1 when something is unsupported.
    #
    #   deckhand migrate --check            # the application in this directory
    #   deckhand migrate --check ../shop
    class MigrateCommand
      include Command

      HEADINGS = {works: "Works as is", change: "Needs a change", unsupported: "Unsupported"}.freeze
      MARKS = {works: "ok", change: "change", unsupported: "unsupported"}.freeze

      def run
        check = nil
        parser = options { check = true }
        paths = parser.parse(@argv)
        return usage(parser) unless check
        report(Migration::Check.new(paths.first || Dir.pwd, config_file: ConfigFile))
      rescue OptionParser::ParseError, ConfigError => e
        @err.puts("deckhand migrate: #{e.message}")
        1
      end

      private

      def options(&check)
        OptionParser.new do |p|
          p.banner = "Usage: deckhand migrate --check [APP_ROOT]\n\nChecks a Sidekiq application for Deckhand's drop-in mode " \
            "(docs/migrating-from-sidekiq.md).\n\n"
          p.on("--check", "Scan the application and report; changes nothing", &check)
        end
      end

      def usage(parser)
        @out.puts(parser.help)
        (@argv.include?("-h") || @argv.include?("--help")) ? 0 : 1
      end

      def report(check)
        @out.puts("Deckhand migration check of #{check.root}")
        groups = check.findings.group_by(&:verdict)
        HEADINGS.each do |verdict, heading|
          found = groups.fetch(verdict, [])
          @out.puts("", "#{heading} (#{found.size}):")
          found.each { |finding| @out.puts("  [#{MARKS[verdict]}] #{finding.line}") }
        end
        @out.puts("", check.unsupported? ? "Unsupported APIs found: see docs/migrating-from-sidekiq.md before switching." : "Nothing unsupported found.")
        check.unsupported? ? 1 : 0
      end
    end
  end
end
