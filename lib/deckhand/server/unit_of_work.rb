# frozen_string_literal: true

module Deckhand
  module Server
    # A fetched job: its in-flight field (what acknowledges it), its raw bytes and
    # the queue it came from.
    UnitOfWork = Struct.new(:field, :payload, :queue)
  end
end
