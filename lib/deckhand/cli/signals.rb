# frozen_string_literal: true

require_relative "../server/signals"

module Deckhand
  class CLI
    # The `deckhand` command's signal handling: the server's
    # (Server::Signals), which a swarm worker runs too without the CLI.
    #
    #   signals = CLI::Signals.new(launcher, logger)
    #   signals.trap
    #   signals.wait_for_stop   # => :stop on INT or TERM
    class Signals < Server::Signals
    end
  end
end
