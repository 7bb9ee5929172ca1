# frozen_string_literal: true

module Deckhand
  class Config
    # Where an operations endpoint listens: a port (on the setting's default
    # host) or "host:port". Port 0 picks a free port (tests, ephemeral jobs).
    #
    #   Address.parse(:health_check, "127.0.0.1:7434", default_host: "127.0.0.1")   # => #<Address host="127.0.0.1" port=7434>
    #   Address.parse(:metrics_port, 9394, default_host: "0.0.0.0").to_s            # => "0.0.0.0:9394"
    Address = Struct.new(:host, :port) do # :nodoc:
      def self.parse(setting, value, default_host:)
        host, port = (value.is_a?(Integer) || value.to_s.match?(/\A\d+\z/)) ? [default_host, value.to_s] : value.to_s.rpartition(":").values_at(0, 2)
        host = host.delete_prefix("[").delete_suffix("]")
        number = Integer(port, 10) if port.match?(/\A\d+\z/)
        unless number && number <= 65_535 && !host.empty?
          raise ConfigError, "#{setting} must be a port (like 9394) or \"host:port\" (like \"127.0.0.1:7434\"), got #{value.inspect}"
        end
        new(host, number)
      end

      def to_s = host.include?(":") ? "[#{host}]:#{port}" : "#{host}:#{port}"
    end
  end
end
