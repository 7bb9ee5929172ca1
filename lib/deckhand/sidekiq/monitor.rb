# frozen_string_literal: true

require_relative "api"

module Sidekiq
  # sidekiqmon in drop-in mode: a one-shot text summary of the Redis the
  # application uses (totals, processes, queues), read through Sidekiq's data
  # API classes, which read Deckhand's. For a live view, `deckhand top`.
  #
  #   require "sidekiq/monitor"
  #   Sidekiq::Monitor::Status.new.display            # every section
  #   Sidekiq::Monitor::Status.new.display("queues")  # version, overview, processes or queues
  class Monitor
    class Status
      SECTIONS = %w[all version overview processes queues].freeze

      def display(section = nil)
        section = (section || "all").to_s.downcase
        unless SECTIONS.include?(section)
          return puts("I don't know how to check the status of '#{section}'!", "Try one of these: #{SECTIONS.join(", ")}")
        end
        return public_send(section) && nil unless section == "all"
        SECTIONS.drop(1).each_with_index do |name, index|
          puts unless index.zero?
          public_send(name)
        end
        nil
      end

      def version
        puts "Sidekiq #{Sidekiq::VERSION} (Deckhand #{Deckhand::VERSION} drop-in mode)", Time.now.utc
      end

      def overview
        stats = Sidekiq::Stats.new
        puts "---- Overview ----"
        {"Processed" => :processed, "Failed" => :failed, "Busy" => :workers_size, "Enqueued" => :enqueued,
         "Retries" => :retry_size, "Scheduled" => :scheduled_size, "Dead" => :dead_size}.each do |label, field|
          puts "#{label.rjust(11)}: #{delimit(stats.public_send(field))}"
        end
      end

      def processes
        set = Sidekiq::ProcessSet.new.to_a
        puts "---- Processes (#{set.size}) ----"
        set.each_with_index do |process, index|
          puts "#{process["identity"]} #{tags_for(process)}".rstrip
          puts "  Started: #{Time.at(process["started_at"])} (#{time_ago(process["started_at"])})"
          puts "  Threads: #{process["concurrency"]} (#{process["busy"]} busy)"
          puts "   Queues: #{split_multiline(queue_names(process), pad: 11)}"
          puts "" unless index == set.size - 1
        end
      end

      def queues
        rows = Sidekiq::Queue.all.map { |queue| [queue.name, queue.size.to_s, format("%#.2f", queue.latency)] }
        puts "---- Queues (#{rows.size}) ----"
        widths = (0..2).map { |column| ([%w[name size latency][column]] + rows.map { |row| row[column] }).map(&:length).max + 2 }
        [%w[NAME SIZE LATENCY], *rows].each do |name, size, latency|
          puts name.ljust(widths[0]) + size.rjust(widths[1]) + latency.rjust(widths[2])
        end
      end

      private

      def delimit(number) = number.to_i.to_s.reverse.scan(/\d{1,3}/).join(",").reverse

      # Each capsule's queues (a Sidekiq 8 or Deckhand process), else the
      # process's queues (an older Sidekiq's), as one.
      def queue_names(process)
        if process["capsules"].is_a?(Hash)
          process["capsules"].values.map { |capsule| Array(capsule["weights"]&.keys || capsule["queues"]).join(", ") }
        else
          [Array(process["queues"]).sort.join(", ")]
        end
      end

      # "a; b; c", wrapped past max_length onto lines indented by pad.
      def split_multiline(values, opts = {})
        return "none" unless values
        pad = opts[:pad] || 0
        max = opts[:max_length] || (80 - pad)
        lines = [+""]
        values.each do |value|
          lines << (" " * pad) if !lines.last.strip.empty? && lines.last.length + value.length > max
          lines.last << value << "; "
        end
        lines.map { |line| line.delete_suffix("; ") }.join("\n")
      end

      # "[tag] [label] [quiet]", or nil.
      def tags_for(process)
        list = [process["tag"], process["labels"], ((process["quiet"].to_s == "true") ? "quiet" : nil)].flatten.compact
        list.reject! { |tag| tag.to_s.empty? }
        list.empty? ? nil : "[#{list.join("] [")}]"
      end

      def time_ago(timestamp)
        seconds = Time.now - Time.at(timestamp)
        if seconds < 60 then "just now"
        elsif seconds < 120 then "a minute ago"
        elsif seconds < 3600 then "#{seconds.floor / 60} minutes ago"
        elsif seconds < 7200 then "an hour ago"
        else "#{seconds.floor / 3600} hours ago"
        end
      end
    end
  end
end
