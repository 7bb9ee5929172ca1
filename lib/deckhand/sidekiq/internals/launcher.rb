# frozen_string_literal: true

require "deckhand/server"
require_relative "processor"
require_relative "manager"
require_relative "scheduled_poller"
require_relative "sidekiq_activity"
require_relative "../component"

module Sidekiq
  # Sidekiq's launcher in drop-in mode: a Deckhand server
  # (Deckhand::Server::Launcher) under Sidekiq's names, for code that starts
  # one itself (an older way to embed Sidekiq) or drives its heartbeat. Its
  # heartbeat writes the process record Sidekiq's does (busy counting
  # Sidekiq::Processor::WORK_STATE too, a 60 s TTL in drop-in mode) and
  # fires :heartbeat and :beat; `beat` names the process from PROCTITLES, as
  # the heartbeat of every `deckhand` server in drop-in mode does.
  #
  #   Sidekiq::Launcher::PROCTITLES << proc { |launcher, data| "deploy #{ENV["REVISION"]}" }
  #   launcher = Sidekiq::Launcher.new(Sidekiq.default_configuration)
  #   launcher.run      # a Deckhand server in this process
  #   launcher.stop     # quiet, wait up to config[:timeout], hand the rest back
  class Launcher
    include Sidekiq::Component

    STATS_TTL = 5 * 365 * 24 * 60 * 60
    # Sidekiq's pause between beats, which plugins read; a Deckhand server
    # beats every heartbeat_interval (2 s).
    BEAT_PAUSE = 10
    # What names the process, in order: each is called with the launcher and
    # the process's description (Sidekiq's to_data); a nil is left out.
    PROCTITLES = [
      proc { "sidekiq" },
      proc { Sidekiq::VERSION },
      proc { |_launcher, data| data["tag"] },
      proc { |launcher, _data| "[#{Processor::WORK_STATE.size} of #{launcher.config.total_concurrency} busy]" },
      proc { |launcher, _data| "stopping" if launcher.stopping? }
    ]
    # The resident memory of process `pid` in KB. Where /proc is (Linux) a
    # process that is gone raises Errno::ENOENT, as Sidekiq's grabber does:
    # a caller checking on another process learns it is gone, not "0 KB".
    MEMORY_GRABBER = lambda do |pid|
      status = "/proc/#{Integer(pid)}/status"
      raise Errno::ENOENT, status if File.directory?("/proc/self") && !File.exist?(status)
      Deckhand::Server::ResidentMemory.rss_kb(pid) || 0
    end

    @views = {}.compare_by_identity
    @views_lock = Mutex.new

    # The title of a Deckhand server's process, from PROCTITLES (what
    # Deckhand::Lifecycle.title is in drop-in mode).
    def self.title_for(server) = of(server).title

    # The Sidekiq::Launcher of a Deckhand server (one the `deckhand` command
    # built, or one of ours).
    def self.of(server)
      @views_lock.synchronize { @views[server] ||= new(sidekiq_config(server.config), server: server) }
    end

    # The Sidekiq::Config over a Deckhand configuration: the default one
    # when it is the default configuration.
    def self.sidekiq_config(deckhand)
      default = Sidekiq.default_configuration
      default.config.equal?(deckhand) ? default : Sidekiq::Config.new(deckhand)
    end

    def self.adopt(server, launcher) = @views_lock.synchronize { @views[server] = launcher }

    attr_accessor :managers, :poller

    # server: a Deckhand server to speak for, rather than a new one.
    def initialize(config, embedded: false, server: nil)
      @config = config.is_a?(Deckhand::Config) ? Launcher.sidekiq_config(config) : config
      @server = server || build(embedded)
      @embedded = @server.embedded?
      Processor::WORK_STATE.watch(@server.stats)
      @managers = []
      @poller = Scheduled::Poller.new(@config)
      @done = false
      Launcher.adopt(@server, self) unless server
    end

    # Starts the server's threads; its heartbeat has a thread of its own
    # (with async_beat: false too: calling #heartbeat as well adds a beat).
    def run(async_beat: true)
      @config.freeze!
      @server.start
      self
    end

    def quiet
      return if @done
      @done = true
      @server.quiet
    end

    def stop
      quiet
      @server.stop
    end

    def stopping? = @done

    def identity = @server.identity

    # One beat now: the record, the stats, the events; the title unless embedded.
    def heartbeat
      beats = @server.heartbeat
      beats.announce!
      beats.beat
      nil
    end

    alias_method :beat, :heartbeat

    # The process's title, as PROCTITLES makes it.
    def title
      data = to_data
      PROCTITLES.map { |part| part.call(self, data) }.compact.join(" ")
    end

    # The process as its record describes it (Sidekiq's keys).
    def to_data = @server.info

    private

    # Sidekiq's private reader of a process's memory, which plugins call (send).
    def memory_usage(pid) = MEMORY_GRABBER.call(pid)

    # A remote signal (the dashboard's quiet or stop) reaches the process,
    # as Sidekiq has it; an embedded launcher leaves its host alone.
    def build(embedded)
      on_signal = embedded ? ->(_signal) {} : nil
      Deckhand::Server::Launcher.new(Deckhand::DropIn::ServerInternal.config_of(@config),
        stats: Deckhand::DropIn::SidekiqActivity.new(Processor), embedded: embedded, on_signal: on_signal)
    end
  end
end
