# frozen_string_literal: true

require_relative "../component"

module Deckhand
  module Server
    # The server's parts are Deckhand::Components (lib/deckhand/component.rb),
    # the supervised thread the client and the swarm use too; this name keeps
    # `Server::Component` working where it is spelled out.
    Component = Deckhand::Component
  end
end
