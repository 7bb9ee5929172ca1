# frozen_string_literal: true

require_relative "../../deckhand"
require_relative "../api"
require_relative "command"

module Deckhand
  class CLI
    # `deckhand placement`: in cluster mode, which primary holds which queue
    # and each primary's share; `rebalance` moves queues until every primary
    # holds as many as the others (give or take one), `move QUEUE` moves one,
    # both while jobs flow (docs/cluster.md, "Moving a queue").
    #
    #   deckhand placement --redis redis://10.0.0.1:7000,redis://10.0.0.2:7000
    #   deckhand placement rebalance --dry-run
    #   deckhand placement move mail --to 10.0.0.2:7000
    class PlacementCommand
      include Command

      def run
        options, action, queue = parse
        return @out.puts(options[:help]) || 0 if options[:help]
        connect(options)
        case action
        when nil then show
        when "rebalance" then rebalance(options)
        when "move" then move(queue, options)
        else raise ConfigError, "unknown action #{action.inspect}: use rebalance or move QUEUE (see deckhand placement --help)"
        end
      rescue ConfigError, PlacementError, RedisError, LoadError => e
        report("deckhand placement", e)
      end

      private

      def parse
        options, rest = parse_options("deckhand placement",
          "Usage: deckhand placement [rebalance [--dry-run] | move QUEUE [--to HOST:PORT]] [options]\n\n" \
          "Shows, or evens out, which cluster primary holds which queue. Redis comes from REDIS_URL or --redis.\n\n") do |p, options|
          p.on("--dry-run", "rebalance: print the moves, make none") { options[:dry_run] = true }
          p.on("--to HOST:PORT", "move: the primary to move to (default: the one holding the fewest queues)") { |v| options[:to] = v }
          p.on("--timeout SECONDS", Float, "Seconds to wait for every process to follow a step (default: 60)") { |v| options[:timeout] = v }
        end
        raise ConfigError, "deckhand placement move needs a QUEUE" if rest.first == "move" && rest[1].nil?
        [options, rest[0], rest[1]]
      end

      def show
        api = API.new
        placement = api.placement
        placement.primaries.each do |primary|
          @out.puts(format("%-24s %5.1f %%  %s", primary.address, primary.share * 100, primary.queues.join(" ")))
        end
        return 0 unless placement.cluster?
        moves = api.queue_moves
        moves.under_way.each do |queue, state|
          @out.puts("moving #{queue}: #{state["from"]} -> #{state["to"]} (step: #{state["step"]}); " \
            "if no `deckhand placement` is running it, `deckhand placement move #{queue}` finishes it")
        end
        moves.stranded.each do |tag, (queue, size)|
          @out.puts("#{size} jobs of #{queue} wait under #{tag}, a tag it left: `deckhand placement move #{queue}` brings them along")
        end
        0
      end

      def rebalance(options)
        moves = API.new.queue_moves(timeout: options.fetch(:timeout, 60))
        plan = moves.plan
        return @out.puts("balanced: nothing to move") || 0 if plan.empty?
        plan.each { |m| @out.puts("#{options[:dry_run] ? "would move" : "moving"} #{m.queue}: #{m.from} -> #{m.to} (#{m.tag})") }
        return 0 if options[:dry_run]
        moves.rebalance.each { |result| done(result) }
        0
      end

      def move(queue, options)
        done(API.new.queue_moves(timeout: options.fetch(:timeout, 60)).move(queue, to: options[:to]))
        0
      end

      def done(result)
        @out.puts("moved #{result.queue}: #{result.from} -> #{result.to}, #{result.jobs} queued jobs and " \
          "#{result.entries} scheduled/retry/dead entries in #{result.seconds}s")
      end
    end
  end
end
