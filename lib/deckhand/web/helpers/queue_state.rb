# frozen_string_literal: true

require "shellwords"

module Deckhand
  class Web
    module Helpers
      # What an on-call reader needs beside a queue's name: whether it is
      # paused, whether any live process works it, and where its throttle
      # comes from.
      #
      #   queue_badges(queue, worked: ["default"])  # => <span class="badge warn">paused</span> ...
      #   throttle_source(api.throttle("exports"))  # => "configuration of 2 server processes"
      module QueueState
        # worked: the queue names live processes work (ProcessSet#worked_queues).
        def queue_badges(queue, worked:)
          badges = []
          badges << %(<span class="badge warn" title="Paused: its jobs wait until it is resumed">paused</span>) if queue.paused?
          unless worked.include?(queue.name)
            badges << %(<span class="badge bad unworked-badge" title="No live process works this queue: its jobs wait until one is started with it (#{h(start_command(queue.name))})">no process works it</span>)
          end
          html(badges.map { |badge| " #{badge}" }.join)
        end

        # The command that starts a process working `queue`, quoted for a
        # shell: "deckhand -q my\\ queue" for a name with a space.
        def start_command(queue) = Shellwords.join(["deckhand", "-q", queue.to_s])

        # A process's capsules as it published them: "default 10 threads,
        # weighted: critical 3, default 1 · cpu 1 thread, strict: reports".
        def capsule_summary(process)
          process.capsules.map do |name, capsule|
            threads = capsule["concurrency"].to_i
            queues = Array(capsule["queues"]).map(&:to_s)
            weights = capsule["weights"].is_a?(Hash) ? capsule["weights"] : {}
            order = (capsule["mode"] == "strict") ? "strict: #{queues.join(", ")}" : "weighted: #{queues.map { |q| "#{q} #{weights[q]}" }.join(", ")}"
            "#{name} #{threads} #{(threads == 1) ? "thread" : "threads"}#{", #{order}" unless queues.empty?}"
          end.join(" · ")
        end

        def throttle_source(throttle)
          case throttle.source
          when :runtime then "set at run time"
          when :servers
            n = throttle.publishers.size
            text = "configuration of #{n} server #{(n == 1) ? "process" : "processes"}"
            throttle.disagree? ? "#{text} (other processes publish another limit)" : text
          when :local then "this dashboard's configuration (no live process publishes it)"
          else "not throttled"
          end
        end
      end
    end
  end
end
