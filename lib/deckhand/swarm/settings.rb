# frozen_string_literal: true

require "etc"

module Deckhand
  class Swarm
    # Reads the swarm's two settings from the CLI's (-P / processes:,
    # --max-memory / max_memory:) and refuses bad values by name.
    module Settings # :nodoc:
      MAX_PROCESSES = 256

      module_function

      # Whether a supervisor is needed: more than one worker, or a memory
      # limit (which needs a supervisor even for a single worker). Refuses on
      # a Ruby that cannot fork, before the application boots.
      def wanted?(settings)
        wanted = processes(settings.fetch(:processes, 1)) > 1 || !settings[:max_memory].nil?
        require_fork! if wanted
        wanted
      end

      # JRuby (and Windows) have no fork(2): the swarm cannot start there.
      def require_fork!(can_fork: ::Process.respond_to?(:fork), engine: RUBY_ENGINE)
        return if can_fork
        jruby = engine == "jruby"
        raise ConfigError, "Swarm forks worker processes; #{jruby ? "JRuby" : "this Ruby (#{engine})"} cannot fork. " \
          "Run one deckhand process per core with a supervisor (systemd, foreman) instead, without -P or --max-memory" \
          "#{", and raise -c: JRuby runs a process's threads in parallel on every core" if jruby}"
      end

      # The number of workers for a `-P` value: a whole number, or "auto" (one per core).
      def processes(value)
        return Etc.nprocessors if value.to_s == "auto"
        count = Integer(value.to_s, 10)
        raise ArgumentError unless count.between?(1, MAX_PROCESSES)
        count
      rescue ArgumentError
        raise ConfigError, "processes must be a whole number from 1 to #{MAX_PROCESSES}, or auto (one per core); got #{value.inspect}"
      end

      def max_memory_mb(value)
        return nil if value.nil?
        return value if value.is_a?(Integer) && value.positive?
        raise ConfigError, "max_memory must be a whole number of megabytes, like 1024; got #{value.inspect}"
      end
    end
  end
end
