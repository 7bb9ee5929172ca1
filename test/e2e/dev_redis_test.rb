# frozen_string_literal: true

require_relative "e2e_helper"
require "deckhand/dev_redis/project"
require "open3"

# One development Redis per project: with no Redis configured, the first
# `deckhand` of a project starts one and records it in tmp/deckhand/redis.url;
# a second `deckhand`, an application pushing jobs and `deckhand web`, in the
# same project directory, find it and use it; `deckhand dev-redis stop` ends it.
class DevRedisTest < Minitest::Test
  include Deckhand::E2EHelpers

  NO_REDIS = {"REDIS_URL" => nil}.freeze

  def setup
    super
    # A Redis answering on the default port is used in preference (as before):
    # then this test could not see a project's own Redis start.
    skip "a Redis answers on 127.0.0.1:6379; this test needs that port free of Redis" if Deckhand::DevRedis.answering?
    @project = Dir.mktmpdir("deckhand-project")
  end

  def teardown
    super
  ensure
    if @project
      Deckhand::DevRedis::Project.new(@project).stop
      FileUtils.rm_rf(@project)
    end
  end

  def test_two_servers_and_a_pushing_app_of_one_project_share_one_redis
    # Both at once: the lock lets one start it while the other waits, then finds it.
    first, second = Array.new(2) { in_project("-r", APP) }
    found = [first, second].map { |cli| cli.wait_for_log(/(started|using) this project's development Redis (?:for development )?at (\S+) /) }
    assert_equal ["started", "using"], found.map { |match| match[1] }.sort, "one starts it, the other uses it"
    url = found.first[2]
    assert_equal [url], found.map { |match| match[2] }.uniq
    assert_equal url, File.read(File.join(@project, "tmp/deckhand/redis.url"))

    pushed = push_from_app(7)
    assert_equal url, pushed.lines.last.strip, "the application pushed to another Redis"

    dev = RedisClient.new(url: url)
    wait_for(message: "the pushed job to run on the project's Redis") { dev.call("HGET", "e2e:counts", "7") == "1" }
    identities = [first.identity, second.identity]
    assert_equal identities.sort, (dev.call("SMEMBERS", "processes") & identities).sort, "both servers beat on one Redis"

    web = in_project("web", "-p", "0")
    assert_equal url, web.wait_for_log(/Deckhand dashboard at \S+ \(Redis (\S+)\)/)[1], "the dashboard reads another Redis"
  ensure
    dev&.close
  end

  def test_dev_redis_prints_its_url_and_stop_ends_it
    status = run_in_project("dev-redis")
    assert_equal 1, status.status.exitstatus
    assert_includes status.stdout, "no development Redis runs for this project"

    started = run_in_project("dev-redis", "start")
    assert_equal 0, started.status.exitstatus, started.output
    url = started.stdout[/\A(redis:\S+) \(started/, 1]
    refute_nil url, started.stdout
    assert_equal "#{url} (running", run_in_project("dev-redis").stdout[/\A\S+ \(running/]

    stopped = run_in_project("dev-redis", "stop")
    assert_equal 0, stopped.status.exitstatus, stopped.output
    assert_includes stopped.stdout, "stopped the development Redis"
    refute Deckhand::DevRedis.answering?(url: url), "it still answers at #{url}"
    assert_nil Deckhand::DevRedis::Project.new(@project).running_url
  end

  private

  def in_project(*args)
    cli = Deckhand::CliProcess.start(*args, env: NO_REDIS, dir: @project)
    (@clis ||= []) << cli
    cli
  end

  def run_in_project(*args)
    cli = in_project(*args)
    cli.wait_exit
    cli
  end

  # An application's process, as `rails runner` or a web process would be: it
  # loads the jobs and pushes one, with no Redis configured. Prints the
  # Redis it used.
  def push_from_app(n)
    script = "require #{APP.dump}; E2E::CountJob.perform_async(#{n}); puts Deckhand.config.store.location"
    out, err, status = Open3.capture3(NO_REDIS, RbConfig.ruby, "-I", Deckhand::CliProcess::LIB, "-e", script, chdir: @project)
    assert status.success?, "the pushing application failed: #{err}"
    out
  end
end
