# frozen_string_literal: true

require_relative "../e2e/e2e_helper"
require_relative "apps/swarm_app"

module Deckhand
  # Runs `deckhand -P N` for real and watches its worker processes through
  # /proc. Teardown KILLs the supervisor and every worker it had, so no test
  # leaves a process behind whatever it did to the supervisor.
  module SwarmHelpers
    include E2EHelpers

    SWARM_APP = File.expand_path("apps/swarm_app.rb", __dir__)

    def setup
      skip_on_jruby("the swarm forks its workers; there it refuses to start (test/unit/swarm/slot_test.rb)")
      super
    end

    # Every worker the log says was started and still runs the swarm app is
    # killed too: one whose supervisor had exited (reaped, so no longer its
    # child) would go on working the suite's Redis in later tests.
    def teardown
      (@clis || []).each do |cli|
        # Frozen first: a supervisor replacing workers could fork one between
        # the look at its children and its kill.
        kill_quietly(cli.pid, "STOP") if cli.alive?
        workers = cli.alive? ? children_of(cli.pid) : []
        cli.kill
        logged = started_workers(cli).keys.select { |pid| swarm_app?(pid) }
        (workers | logged | (@orphans || [])).each { |pid| kill_quietly(pid) }
      end
      super
    end

    def swarm(*args, env: {}) = deckhand(*args, app: SWARM_APP, env: env)

    # pid => index of every worker the log says was started, in order.
    def started_workers(cli)
      cli.output.scan(/swarm: worker (\d+) started as pid (\d+)/).to_h { |index, pid| [pid.to_i, index.to_i] }
    end

    # Waits until `count` workers are up (their servers have started).
    def wait_for_workers(cli, count)
      wait_for(message: "#{count} workers to start") do
        fail_unless_alive(cli)
        pids = children_of(cli.pid)
        pids if pids.size == count && pids.all? { |pid| cli.output.include?(" pid=#{pid} ") && cli.output.match?(/pid=#{pid} .*started as /) }
      end
    end

    def fail_unless_alive(cli)
      flunk("the supervisor exited: #{cli.status.inspect}\n#{cli.output[-3000..] || cli.output}") unless cli.alive?
    end

    # The live (not zombie) processes whose parent is `pid`.
    def children_of(pid)
      Dir.glob("/proc/[0-9]*/stat").filter_map do |path|
        fields = File.read(path).split(") ", 2).last.split
        path[%r{\d+}].to_i if fields[1].to_i == pid && !%w[Z X].include?(fields[0])
      rescue SystemCallError
        nil
      end
    end

    def running?(pid)
      state = File.read("/proc/#{pid}/stat").split(") ", 2).last.split.first
      !%w[Z X].include?(state)
    rescue SystemCallError
      false
    end

    def identity_of(cli, pid) = cli.output[/pid=#{pid} .*started as (\S+?): /, 1]

    # A live process of this suite's swarm app (a logged pid may have been
    # given to another process since).
    def swarm_app?(pid)
      running?(pid) && File.read("/proc/#{pid}/cmdline").include?(SWARM_APP)
    rescue SystemCallError
      false
    end

    def kill_quietly(pid, signal = "KILL")
      ::Process.kill(signal, pid)
    rescue SystemCallError
      nil
    end
  end
end
