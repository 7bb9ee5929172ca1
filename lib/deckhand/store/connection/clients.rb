# frozen_string_literal: true

require "set"

module Deckhand
  class Store
    module Connection
      # The names of the connections Redis has open (CLIENT LIST). A server
      # process names its connections after its identity, and the kernel closes
      # them the moment the process dies, however it dies: a process with no
      # connection left is gone, while one merely paused (a long GC, a stopped or
      # starved host) keeps its connections open.
      #
      #   Clients.names(store)   # => #<Set: {"deckhand:web-1:4242:ab12cd", ...}>, or nil where CLIENT LIST is refused
      module Clients # :nodoc:
        module_function

        def names(store)
          # A cluster answers with one list per primary: a process connects to
          # every primary it fetches from, and to the fleet's one each beat.
          lists = Array(store.call("CLIENT", "LIST", "TYPE", "normal"))
          lists.each_with_object(Set.new) do |list, names|
            list.each_line do |line|
              name = line[/(?:\A| )name=(\S*)/, 1]
              names << name if name && !name.empty?
            end
          end
        rescue CommandError
          nil # managed services often refuse CLIENT LIST
        end

        # The connection name of a server process.
        def name_of(identity) = "deckhand:#{identity}"
      end
    end
  end
end
