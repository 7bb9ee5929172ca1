# frozen_string_literal: true

require "json"
require_relative "../tab"

module Deckhand
  class CLI
    module Top
      # The live processes (busy threads, memory, state) and the jobs they
      # run, longest-running first. Q quiets a process and S stops it
      # (API::ProcessInfo#quiet! and #stop!, the signals the dashboard's
      # buttons send); c cancels a running job as the dashboard does
      # (API#cancel, and an iterable job's own cancel).
      #
      #   tab = BusyTab.new.load(api, filter: "")
      #   tab.act(api, :quiet, tab.rows.select { |row| row.kind == :process })
      class BusyTab < Tab
        WORDS = "top.busy"
        ACTIONS = {"Q" => :quiet, "S" => :stop, "c" => :cancel}.freeze
        CONFIRM = %i[stop cancel].freeze
        SILENT = 30 # seconds without a heartbeat before a process is called silent

        def name = t("top.busy.title")

        def load(api, filter: "")
          processes = api.processes
          running = processes.running.first(LIMIT)
          cancelling = api.cancelling(running.map { |work| work.job.jid }.compact)
          now = api.now
          pending = processes.pending_signals
          @summary = t("top.busy.summary", processes: processes.size, busy: processes.sum(&:busy), threads: processes.sum(&:concurrency))
          @sections = [
            Section.new(t("top.busy.processes"), process_table, keep(processes.map { |process| process_row(process, now, pending) }, filter)),
            Section.new(t("top.busy.jobs"), job_table, keep(running.map { |work| job_row(work, now, cancelling) }, filter))
          ]
          self
        end

        def acts_on?(action, row) = row.kind == ((action == :cancel) ? :job : :process)

        def act(api, action, rows)
          case action
          when :quiet then rows.each { |row| row.item.quiet! } && t("top.busy.quieted", count: rows.size)
          when :stop then rows.each { |row| row.item.stop! } && t("top.busy.stopped", count: rows.size)
          when :cancel
            jids = rows.map { |row| row.item.job.jid }
            iterating = api.iterations(jids)
            outcomes = jids.map do |jid|
              IterableJob.cancel!(jid, config: api.config) if iterating.key?(jid)
              api.cancel(jid)
            end
            t("top.cancelled", count: outcomes.count { |o| o != :not_found }, gone: outcomes.count(:not_found))
          end
        end

        private

        def process_table
          Table.new([
            {title: t("top.column.process"), min: 20, flex: 2},
            {title: t("top.column.busy"), min: 7, align: :right},
            {title: t("top.column.rss"), min: 7, align: :right},
            {title: t("top.column.state"), min: 12, flex: 1},
            {title: t("top.column.queues"), min: 12, flex: 2, drop: 1}
          ])
        end

        def job_table
          Table.new([
            {title: t("top.column.job"), min: 20, flex: 2},
            {title: t("top.column.queue"), min: 10, flex: 1},
            {title: t("top.column.for"), min: 7, align: :right},
            {title: t("top.column.jid"), min: 24, drop: 2},
            {title: t("top.column.args"), min: 12, flex: 2, drop: 1}
          ])
        end

        def process_row(process, now, pending)
          name = "#{process.hostname}:#{process.pid}#{" [#{process.tag}]" unless process.tag.empty?}"
          states = []
          states << t("top.state.quiet") if process.quiet? || pending[process.identity].to_a.include?("TSTP")
          states << t("top.state.stopping") if pending[process.identity].to_a.include?("TERM")
          states << t("top.state.silent", span: Fitting.duration(now - process.beat)) if process.beat && now - process.beat > SILENT
          cells = [name, "#{process.busy}/#{process.concurrency}", "#{(process.rss_kb.to_i / 1024.0).round}MB", states, process.queues.join(" ")]
          Row.new(process.identity, cells, process, states.empty? ? nil : :yellow, :process)
        end

        def job_row(work, now, cancelling)
          job = work.job
          cancel = cancelling.include?(job.jid)
          class_name = cancel ? "#{job.display_class} (#{t("top.state.cancelling")})" : job.display_class
          cells = [class_name, work.queue.to_s, work.run_at ? Fitting.duration(now - work.run_at) : "-", job.jid.to_s, JSON.generate(job.display_args)[1...-1]]
          Row.new("#{work.identity}/#{work.thread}", cells, work, cancel ? :yellow : :green, :job)
        end
      end
    end
  end
end
