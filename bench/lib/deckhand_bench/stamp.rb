# frozen_string_literal: true

require "etc"
require "open3"
require_relative "../../../lib/deckhand/version"

module DeckhandBench
  # What the figures were measured on, printed above every results table:
  # the figures mean little without the Ruby, YJIT, Redis (or Valkey) and machine.
  #
  #   stamp = Stamp.collect(lab: lab, systems: systems, plan: plan)
  #   stamp.lines  # => ["Ruby: ruby 3.1.2p20 ...", "YJIT: on ...", ...]
  Stamp = Struct.new(:time, :ruby, :yjit, :server, :cores, :cpu, :load, :systems, :plan, :commit, keyword_init: true) do
    def self.collect(lab:, systems:, plan:)
      new(time: Time.now.utc, ruby: RUBY_DESCRIPTION, yjit: lab.yjit, server: lab.server_version,
        cores: Etc.nprocessors, cpu: cpu_model, load: load_average, systems: systems.map(&:label),
        plan: plan, commit: commit)
    end

    def self.cpu_model
      File.foreach("/proc/cpuinfo") { |line| return line.split(":", 2).last.strip if line.start_with?("model name") }
      nil
    rescue SystemCallError
      nil
    end

    def self.load_average
      File.read("/proc/loadavg").split.first(3).join(" ")
    rescue SystemCallError
      nil
    end

    # The checkout's commit, marked when the code measured differs from it.
    def self.commit
      root = File.expand_path("../../..", __dir__)
      out, status = Open3.capture2e("git", "rev-parse", "--short", "HEAD", chdir: root)
      return nil unless status.success?
      _, clean = Open3.capture2e("git", "diff", "--quiet", "HEAD", "--", "lib", "exe", chdir: root)
      clean.success? ? out.strip : "#{out.strip} with uncommitted changes in lib/"
    rescue SystemCallError
      nil
    end

    def title = "#{time.strftime("%Y-%m-%d %H:%M UTC")}, #{plan.name} suite, #{plan.rounds} round#{"s" if plan.rounds > 1}, medians"

    def lines
      [
        "Ruby: #{ruby}",
        "YJIT: #{yjit ? "on" : "off"} (in every server and client process)",
        "Server: #{server} (one fresh private server, no persistence)",
        "Machine: #{cores} cores#{" (#{cpu})" if cpu}, load average at start #{load || "unknown"}",
        "Systems: #{systems.join(", ")}#{" (commit #{commit})" if commit}",
        "Work: #{plan.describe}"
      ]
    end
  end
end
