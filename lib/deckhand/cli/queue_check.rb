# frozen_string_literal: true

require "shellwords"
require_relative "../api"

module Deckhand
  class CLI
    # At boot: a warning for each queue that holds jobs no live process works,
    # counting the one booting (its jobs would otherwise wait with no hint, as
    # when an application pushes to "mailers" and the server works "default").
    #
    #   QueueCheck.new(config).warn_unworked
    #   # WARN queue mailers holds 12 jobs that no running process works (this one works default) ...
    class QueueCheck
      def initialize(config)
        @config = config
        @own = config.all_capsules.flat_map(&:queues).uniq
      end

      def warn_unworked
        API::UnworkedQueues.new(@config, also_worked: @own).each do |queue|
          @config.logger.warn("queue #{queue.name} holds #{count(queue.size)} that no running process works " \
            "(this one works #{@own.join(", ")}): they wait until a process works it (#{Shellwords.join(["deckhand", "-q", queue.name])}, " \
            "or queues: in config/deckhand.yml)")
        end
      rescue RedisError => e # a warning must not stop a boot
        @config.logger.warn("could not check for queues no process works: #{e.message}")
      end

      private

      def count(size) = (size == 1) ? "1 job" : "#{size} jobs"
    end
  end
end
