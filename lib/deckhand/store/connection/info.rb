# frozen_string_literal: true

module Deckhand
  class Store
    module Connection
      # What Redis says about itself (INFO), as a Hash of its fields.
      #
      #   Info.fields(store)["redis_version"]              # => "7.0.15"
      #   Info.fields(store, "server")["uptime_in_seconds"] # => "86400"
      #   Info.parse("# Memory\r\nused_memory:1024\r\n")    # => {"used_memory" => "1024"}
      module Info # :nodoc:
        module_function

        def fields(store, section = nil)
          parse(section ? store.call("INFO", section) : store.call("INFO"))
        end

        # The fields of INFO's reply; its section headers ("# Memory") have no value.
        def parse(reply)
          reply.each_line.each_with_object({}) do |line, fields|
            name, value = line.chomp.split(":", 2)
            fields[name] = value if value
          end
        end
      end
    end
  end
end
