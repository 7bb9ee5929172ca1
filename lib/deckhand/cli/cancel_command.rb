# frozen_string_literal: true

require_relative "../../deckhand"
require_relative "../api"
require_relative "command"

module Deckhand
  class CLI
    # `deckhand cancel JID...`: cancels jobs by jid, wherever they are
    # (Client.cancel, docs/cancelling.md), and prints what happened to each.
    # Exits 0 when every job was found, 1 otherwise.
    #
    #   deckhand cancel b4a577edbccf1d805744efa9
    #   # => b4a577edbccf1d805744efa9 cancelling_running
    #   deckhand cancel --grace 30 --redis redis://10.0.0.1:6379 b4a5... 0d1e...
    class CancelCommand
      include Command

      def run
        options, jids = parse
        return @out.puts(options[:help]) || 0 if options[:help]
        raise ConfigError, "deckhand cancel needs the jid of a job to cancel (see deckhand cancel --help)" if jids.empty?
        connect(options)
        api = API.new
        outcomes = jids.map { |jid| api.cancel(jid, grace: options[:grace]).tap { |outcome| @out.puts("#{jid} #{outcome}") } }
        outcomes.include?(:not_found) ? 1 : 0
      rescue ConfigError, RedisError, ArgumentError, LoadError => e
        report("deckhand cancel", e)
      end

      private

      def parse
        parse_options("deckhand cancel", "Usage: deckhand cancel JID... [options]\n\n" \
          "Cancels jobs wherever they are: a waiting job is removed and never runs; a running one is told\n" \
          "(cancelled? in the job) at its process's next heartbeat and interrupted after the grace period.\n" \
          "Redis comes from REDIS_URL or --redis.\n\n") do |p, options|
          p.on("--grace SECONDS", Float, "Seconds a running job has to stop by itself (default: the server's cancel_grace)") { |v| options[:grace] = v }
        end
      end
    end
  end
end
