# frozen_string_literal: true

module Deckhand
  class Store
    # What Redis says about itself (INFO), as a Hash of its fields.
    #
    #   Info.fields(store)["redis_version"]              # => "7.0.15"
    #   Info.fields(store, "server")["uptime_in_seconds"] # => "86400"
    module Info # :nodoc:
      module_function

      def fields(store, section = nil)
        reply = section ? store.call("INFO", section) : store.call("INFO")
        reply.each_line.each_with_object({}) do |line, fields|
          name, value = line.chomp.split(":", 2)
          fields[name] = value if value
        end
      end
    end
  end
end
