# frozen_string_literal: true

require_relative "../../deckhand"
require_relative "../api"
require_relative "command"

module Deckhand
  class CLI
    # `deckhand classes [pause|resume NAME...]`: pause by job class
    # (API::ClassPauses, docs/web.md "Pausing a job class"). Without a
    # subcommand, lists the paused classes with how many jobs each holds.
    #
    #   deckhand classes pause ReportJob
    #   # => ReportJob paused: its jobs wait while the rest of their queues runs
    #   deckhand classes
    #   # => ReportJob 3 held
    #   deckhand classes resume ReportJob
    #   # => ReportJob resumed: 3 held jobs back in their queues
    class ClassesCommand
      include Command

      def run
        options, (action, *names) = parse
        return @out.puts(options[:help]) || 0 if options[:help]
        if action && !(%w[pause resume].include?(action) && names.any?)
          raise ConfigError, "deckhand classes takes pause or resume and the names of job classes, like: deckhand classes pause ReportJob " \
            "(see deckhand classes --help)"
        end
        connect(options)
        pauses = API.new.class_pauses
        case action
        when nil then pauses.held.each { |name, held| @out.puts("#{name} #{held} held") }
        when "pause" then names.each { |name| pauses.pause(name) && @out.puts("#{name} paused: its jobs wait while the rest of their queues runs") }
        else names.each { |name| @out.puts("#{name} resumed: #{pauses.resume(name)} held jobs back in their queues") }
        end
        0
      rescue ConfigError, RedisError, ArgumentError, LoadError => e
        report("deckhand classes", e)
      end

      private

      def parse
        parse_options("deckhand classes", "Usage: deckhand classes [pause|resume NAME...] [options]\n\n" \
          "Pauses job classes by name: a fetched job of a paused class is held aside while the other jobs of its\n" \
          "queue run; resume puts the held jobs back in their queues. Without pause or resume, lists the paused\n" \
          "classes and how many jobs each holds. Redis comes from REDIS_URL or --redis.\n\n")
      end
    end
  end
end
