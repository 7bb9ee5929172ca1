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
          badges << %(<span class="badge warn" title="#{t("queues.paused_title")}">#{t("common.paused")}</span>) if queue.paused?
          unless worked.include?(queue.name)
            badges << %(<span class="badge bad unworked-badge" title="#{t("queues.unworked_title", command: start_command(queue.name))}">#{t("queues.unworked")}</span>)
          end
          html(badges.map { |badge| " #{badge}" }.join)
        end

        # The command that starts a process working `queue`, quoted for a
        # shell: "deckhand -q my\\ queue" for a name with a space.
        def start_command(queue) = Shellwords.join(["deckhand", "-q", queue.to_s])

        # A process's capsules as it published them: "default 10 threads,
        # weighted: critical 3, default 1 · cpu 1 thread, strict: reports"
        # (plain text, in the page's language).
        def capsule_summary(process)
          process.capsules.map do |name, capsule|
            threads = capsule["concurrency"].to_i
            queues = Array(capsule["queues"]).map(&:to_s)
            weights = capsule["weights"].is_a?(Hash) ? capsule["weights"] : {}
            order = (capsule["mode"] == "strict") ? locale.t("capsule.strict", queues: queues.join(", ")) : locale.t("capsule.weighted", queues: queues.map { |q| "#{q} #{weights[q]}" }.join(", "))
            threads = locale.t("capsule.threads", count: threads)
            queues.empty? ? "#{name} #{threads}" : locale.t("capsule.summary", name: name, threads: threads, order: order)
          end.join(" · ")
        end

        # Where the limit comes from, in the page's language.
        def throttle_source(throttle)
          case throttle.source
          when :runtime then t("throttle.runtime")
          when :servers
            text = t("throttle.servers", count: throttle.publishers.size)
            throttle.disagree? ? t("throttle.disagree", text: text) : text
          when :local then t("throttle.local")
          else t("throttle.none")
          end
        end
      end
    end
  end
end
