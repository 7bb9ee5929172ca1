# frozen_string_literal: true

require "rbconfig"
require "fileutils"

module Torture
  # Real `deckhand` server processes, started, SIGKILLed, TERMed and counted.
  # Each child is `ruby -I lib exe/deckhand -r torture/app.rb ...` with the
  # Bundler setup this process runs under; its log goes to a file in `dir`.
  # With `jruby: true` the children run on JRuby instead (bin/jruby, with its
  # own bundle under tmp/jruby), each a JVM that takes seconds to boot.
  #
  #   fleet = Fleet.new(dir: dir, redis_url: url, ledger_url: lurl, settings: {heartbeat_ttl: 2})
  #   member = fleet.spawn(concurrency: 10)
  #   fleet.kill(member)               # SIGKILL; the time is kept in fleet.kills
  #   fleet.replace_one(random: Random.new, processes: 3) # a churn's step: nil while one boots
  #   fleet.stop_all
  class Fleet
    ROOT = File.expand_path("../..", __dir__)
    EXE = File.join(ROOT, "exe", "deckhand")
    APP = File.join(ROOT, "torture", "app.rb")
    JRUBY = File.join(ROOT, "bin", "jruby")
    BOOT_TIMEOUT = 30
    # A JVM boots in 5 to 25 s on a loaded 2-core machine, several at once longer.
    JRUBY_BOOT_TIMEOUT = 180

    # options: what it was spawned with, which its replacement gets
    # (#replace_one); booted_at: the wall-clock time its boot was first seen.
    Member = Struct.new(:pid, :log, :spawned_at, :status, :identity, :options, :booted_at)

    attr_reader :members, :kills

    def initialize(dir:, redis_url:, ledger_url:, settings: {}, timeout: 8, jruby: false)
      @dir = dir
      @jruby = jruby
      @redis_url = redis_url
      @ledger_url = ledger_url
      @settings = settings
      @timeout = timeout
      @members = []
      @kills = []
      @serial = 0
      FileUtils.mkdir_p(dir)
    end

    # env: variables added to the child's environment (scenario 17 runs one
    # server under libfaketime this way).
    def spawn(concurrency: 10, queues: ["default"], wait: true, env: {})
      @serial += 1
      log = File.join(@dir, "server-#{@serial}.log")
      args = ["-r", @settings.fetch(:app, APP), "-C", config_file, "-c", concurrency.to_s, "-t", @timeout.to_s, *queues.flat_map { |q| ["-q", q] }]
      base = {"REDIS_URL" => @redis_url, "TORTURE_LEDGER_URL" => @ledger_url,
              "TORTURE_REAPER_INTERVAL" => @settings[:reaper_interval]&.to_s}
      pid = ::Process.spawn(base.merge(env, ruby_env), *ruby, "-I", File.join(ROOT, "lib"), EXE, *args,
        in: File::NULL, out: log, err: log, chdir: @dir)
      member = Member.new(pid, log, now, nil, nil, {concurrency: concurrency, queues: queues, env: env})
      @members << member
      ready(member) if wait
      member
    end

    # Waits until the member logged its identity (its capsules are running).
    def ready(member)
      limit = @jruby ? JRUBY_BOOT_TIMEOUT : BOOT_TIMEOUT
      deadline = now + limit
      until identity(member)
        if (member.status = ::Process.waitpid2(member.pid, ::Process::WNOHANG)&.last)
          raise "deckhand exited at boot: #{File.read(member.log)[-2000..]}"
        end
        raise "deckhand did not boot within #{limit}s" if now > deadline
        sleep 0.02
      end
      member
    end

    def alive = @members.select { |m| m.status.nil? }

    # Children that exited since the last call (crashed, killed or stopped).
    def exited
      alive.select { |m| m.status = ::Process.waitpid2(m.pid, ::Process::WNOHANG)&.last }
    end

    # The members up and working: alive, and booted (their identity logged).
    def booted = alive.select { |m| identity(m) }

    # One step of a SIGKILL churn: once `processes` members are booted, one
    # of them, picked with `random` (or by `pick`, given the booted members),
    # is SIGKILLed and another spawned in its place with the victim's
    # options, not waited for. Returns the member killed, or nil while one
    # is still booting, and kills nothing then: a replacement takes 3 to
    # 10 s to boot on a loaded 2-core machine, so a kill every second would
    # soon kill each server the moment it booted, leaving none to work or to
    # reap the dead.
    def replace_one(random:, processes:, pick: nil)
      up = booted
      return nil if up.empty? || up.size < processes
      victim = pick ? pick.call(up) : up.sample(random: random)
      return nil unless victim
      kill(victim)
      spawn(wait: false, **victim.options)
      victim
    end

    def kill(member)
      ::Process.kill("KILL", member.pid)
      @kills << [member.pid, Time.now.to_f]
      member.status = ::Process.waitpid2(member.pid).last
    end

    # TERM, then wait for the exit; returns the seconds it took.
    def term(member, limit: @timeout + 30)
      started = now
      ::Process.kill("TERM", member.pid)
      deadline = started + limit
      until (status = ::Process.waitpid2(member.pid, ::Process::WNOHANG)&.last)
        return force(member) if now > deadline
        sleep 0.01
      end
      member.status = status
      now - started
    end

    def stop_all
      alive.each { |m| term(m) }
    end

    def identity(member)
      member.identity ||= File.read(member.log)[/started as (\S+?): /, 1].tap do |found|
        member.booted_at = Time.now.to_f if found
      end
    end

    def log_text = @members.map { |m| File.exist?(m.log) ? File.read(m.log) : "" }.join

    private

    def ruby = @jruby ? [JRUBY, "-rbundler/setup"] : [RbConfig.ruby]

    # bin/jruby points Bundler at JRuby's own bundle; MRI's Bundler settings
    # (RUBYOPT's -rbundler/setup, the Gemfile) must not reach the JVM.
    # --dev (JRuby's interpreter, the JVM's first compiler tier) boots in about
    # half the time; set JRUBY_OPTS for another setting.
    def ruby_env
      return {} unless @jruby
      {"RUBYOPT" => nil, "BUNDLE_GEMFILE" => nil, "BUNDLER_SETUP" => nil, "JRUBY_OPTS" => ENV.fetch("JRUBY_OPTS", "--dev")}
    end

    def config_file
      @config_file ||= File.join(@dir, "deckhand.yml").tap do |path|
        yaml = @settings.slice(:heartbeat_interval, :heartbeat_ttl).map { |k, v| "#{k}: #{v}\n" }.join + @settings[:yaml].to_s
        File.write(path, yaml)
      end
    end

    def force(member)
      ::Process.kill("KILL", member.pid)
      member.status = ::Process.waitpid2(member.pid).last
      Float::INFINITY
    end

    def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
  end
end
