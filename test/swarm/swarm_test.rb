# frozen_string_literal: true

require_relative "swarm_helper"

# `deckhand -P 2`: a supervisor and its forked workers, driven by real signals.
class SwarmTest < Minitest::Test
  include Deckhand::SwarmHelpers

  def test_loads_the_app_once_and_forks_workers_with_their_own_identity
    loads = File.join(Dir.mktmpdir("swarm-loads"), "loads")
    (@config_dirs ||= []) << File.dirname(loads)
    cli = swarm("-P", "2", "-c", "2", env: {"SWARM_LOADS" => loads})
    workers = wait_for_workers(cli, 2)
    assert_equal [cli.pid.to_s], File.readlines(loads, chomp: true), "the application was loaded more than once"
    identities = workers.map { |pid| identity_of(cli, pid) }
    assert_equal 2, identities.uniq.size
    identities.zip(workers).each do |identity, pid|
      assert_equal pid, process_info(identity)["pid"]
      assert_equal 1, redis.call("HEXISTS", "deckhand:owners", identity)
    end
    assert_equal workers.sort, redis.call("HKEYS", "swarm:booted").map(&:to_i).sort

    SwarmApp::PidJob.perform_bulk(Array.new(20) { [0.05] })
    wait_for(message: "the jobs to run") { redis.call("LLEN", "swarm:pids") == 20 }
    ran_in = redis.call("LRANGE", "swarm:pids", 0, -1).map(&:to_i).uniq.sort
    assert_equal workers.sort, ran_in, "both workers should have taken jobs"
  end

  def test_term_waits_for_every_workers_graceful_stop
    cli = swarm("-P", "2", "-c", "1", "-t", "1", "-q", "slow")
    workers = wait_for_workers(cli, 2)
    jids = Array.new(2) { SwarmApp::SlowJob.perform_async(30) }
    wait_for(message: "a slow job in each worker") { redis.call("LLEN", "swarm:started") == 2 }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus
    workers.each { |pid| refute running?(pid), "worker #{pid} outlived the supervisor" }
    assert_equal jids.sort, jobs_in("slow").map { |job| job["jid"] }.sort, "the running jobs were not handed back"
    assert_equal 0, redis.call("SCARD", "processes")
    assert_equal 0, redis.call("HLEN", "deckhand:owners")
    assert_match(/swarm: received TERM/, cli.output)
    assert_equal 2, cli.output.scan(/pid=\d+ .*INFO: stopped$/).size
    assert_match(/INFO: swarm stopped$/, cli.output)
  end

  def test_a_running_job_sees_its_worker_stopping
    cli = swarm("-P", "2", "-c", "1", "-t", "10")
    wait_for_workers(cli, 2)
    SwarmApp::PatientJob.perform_async
    wait_for(message: "the job to start") { redis.call("LLEN", "swarm:started") == 1 }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus
    assert_equal ["true"], redis.call("LRANGE", "swarm:noticed", 0, -1)
    assert_empty jobs_in("default"), "the job finished, nothing to hand back"
  end

  def test_a_killed_worker_is_replaced_by_a_new_process_with_a_new_identity
    cli = swarm("-P", "2", "-c", "1")
    first, second = wait_for_workers(cli, 2)
    old_identity = identity_of(cli, first)
    ::Process.kill("KILL", first)
    replacement = wait_for(message: "a replacement worker") do
      (children_of(cli.pid) - [first, second]).first.then { |pid| pid if pid && identity_of(cli, pid) }
    end
    assert_match(/worker \d \(pid #{first}\) exited \(signal KILL\) after [\d.]+s; restarting it/, cli.output)
    refute_equal old_identity, identity_of(cli, replacement)
    assert running?(second), "the other worker was disturbed"
    SwarmApp::PidJob.perform_async(0)
    wait_for(message: "a job after the restart") { redis.call("LLEN", "swarm:pids") == 1 }
  end

  def test_workers_dying_at_boot_are_restarted_with_growing_delays
    gate = File.join(Dir.mktmpdir("swarm-gate"), "open")
    (@config_dirs ||= []) << File.dirname(gate)
    cli = swarm("-P", "1", "-c", "1", "--max-memory", "4096", env: {"SWARM_BOOT_GATE" => gate})
    cli.wait_for_log(/restarting it in 2\.0s \(3 failures at boot in a row\)/, timeout: 20)
    delays = cli.output.scan(/exited \(status 3\) after [\d.]+s; restarting it in ([\d.]+)s/).flatten.map(&:to_f)
    assert_equal [0.5, 1.0, 2.0], delays.first(3)
    File.write(gate, "")
    wait_for_workers(cli, 1)
  end

  def test_a_worker_past_the_memory_limit_is_replaced_gracefully
    cli = swarm("-P", "2", "-c", "1", "--max-memory", "300")
    first, second = wait_for_workers(cli, 2)
    SwarmApp::HogJob.perform_async(400)
    wait_for(message: "the hog job") { redis.call("LLEN", "swarm:hogged") == 1 }
    hog = redis.call("LINDEX", "swarm:hogged", 0).to_i
    calm = ([first, second] - [hog]).first
    cli.wait_for_log(/worker \d \(pid #{hog}\) uses \d+ MB, over the 300 MB limit: replacing it/)
    cli.wait_for_log(/worker \d \(pid #{hog}\) replaced and stopped \(status 0\)/)
    wait_for(message: "two workers again") { (children_of(cli.pid) - [calm]).size == 1 && children_of(cli.pid).size == 2 }
    assert running?(calm)
    refute running?(hog)
  end

  # A limit below a fresh worker's size replaces every worker at each check:
  # said once, with the size to give instead.
  def test_a_limit_below_a_fresh_worker_is_said_once
    cli = swarm("-P", "1", "-c", "1", "--max-memory", "1")
    line = cli.wait_for_log(/WARN: swarm: --max-memory 1 MB is below what a fresh worker uses.*$/)[0]
    assert_match(/the supervisor, which each worker starts from, uses \d+ MB\. Every worker would be replaced at its first check, every 2s/, line)
    assert_match(/Set --max-memory \(max_memory:\) above \d+ MB/, line)
    2.times { |i| cli.wait_for_log(/(?:uses \d+ MB, over the 1 MB limit: replacing it.*){#{i + 2}}/m, timeout: 10) }
    assert_equal 1, cli.output.scan("is below what a fresh worker uses").size, "said once"
  end

  # The supervisor under the limit, its workers over it from their boot.
  def test_a_worker_over_the_limit_from_its_boot_is_said_once
    cli = swarm("-P", "1", "-c", "1", "--max-memory", "400", env: {"SWARM_BOOT_BALLAST" => "500"})
    line = cli.wait_for_log(/WARN: swarm: --max-memory 400 MB is below what a fresh worker uses.*$/, timeout: 15)[0]
    assert_match(/worker 0 \(pid \d+\) was over it [\d.]+s after it started, at \d+ MB\. Every worker would be replaced/, line)
    cli.wait_for_log(/(?:over the 400 MB limit: replacing it.*){3}/m, timeout: 15)
    assert_equal 1, cli.output.scan("is below what a fresh worker uses").size, "said once"
  end

  def test_tstp_and_ttin_reach_every_worker
    cli = swarm("-P", "2", "-c", "1", "-C", config_file("heartbeat_interval: 0.2\n"))
    workers = wait_for_workers(cli, 2)
    identities = workers.map { |pid| identity_of(cli, pid) }
    cli.signal("TTIN")
    workers.each { |pid| cli.wait_for_log(/pid=#{pid} .*WARN: thread deckhand-heartbeat/) }
    cli.wait_for_log(/pid=#{cli.pid} .*swarm: worker 0: pid \d+, up \d+s, rss \d+ MB/)
    cli.signal("TSTP")
    wait_for(message: "both workers quiet") { identities.all? { |id| redis.call("HGET", id, "quiet") == "true" } }
    SwarmApp::PidJob.perform_async(0)
    assert workers.all? { |pid| running?(pid) }, "a worker died after TSTP"
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 15).exitstatus
    assert_equal 1, jobs_in("default").size, "a quiet worker took a job"
  end

  def test_workers_stop_by_themselves_when_the_supervisor_is_killed
    cli = swarm("-P", "2", "-c", "1", "-t", "1", "-q", "slow")
    workers = wait_for_workers(cli, 2)
    @orphans = workers
    jid = SwarmApp::SlowJob.perform_async(30)
    wait_for(message: "the slow job") { redis.call("LLEN", "swarm:started") == 1 }
    cli.signal("KILL")
    # The workers log after the supervisor died; its output is kept once it is reaped.
    wait_for(message: "both workers to see the supervisor gone") { cli.output.scan("WARN: the swarm supervisor is gone: stopping").size == 2 }
    cli.wait_exit(timeout: 5)
    wait_for(timeout: 15, message: "the orphaned workers to exit") { workers.none? { |pid| running?(pid) } }
    assert_equal [jid], jobs_in("slow").map { |job| job["jid"] }, "the running job was not handed back"
    assert_equal 0, redis.call("SCARD", "processes")
  end

  def test_processes_auto_and_the_config_file
    cli = swarm("-C", config_file("processes: auto\nconcurrency: 1\n"))
    wait_for_workers(cli, Etc.nprocessors)
    assert_match(/starting #{Etc.nprocessors} workers/, cli.output)
  end

  def test_bad_values_are_refused
    cli = deckhand_run("-P", "0")
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, "processes must be a whole number from 1 to 256, or auto"
    cli = deckhand_run("--max-memory", "lots")
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, "--max-memory"
    cli = deckhand_run("-C", config_file("max_memory: -5\n"))
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, "max_memory must be a whole number of megabytes"
  end
end
