# frozen_string_literal: true

require "test_helper"
require "socket"

# StatsD / DogStatsD: the datagrams a server sends for its jobs, received on
# a local UDP socket, with Sidekiq Pro's names and tags.
class StatsdTest < Minitest::Test
  def setup
    super
    @agent = UDPSocket.new
    @agent.bind("127.0.0.1", 0)
    @received = []
  end

  def teardown
    @agent.close
    super
  end

  # Every metric line received so far.
  def lines
    while (packet = @agent.recv_nonblock(65_536, exception: false)) != :wait_readable
      @received.concat(packet.split("\n"))
    end
    @received
  end

  # The sum of a counter over every datagram: name, tags => total.
  def count(name, tags) = lines.sum { |l| (m = /\A#{Regexp.escape(name)}:(\d+)\|c#{Regexp.escape(tags)}\z/.match(l)) ? m[1].to_i : 0 }

  def test_jobs_are_counted_and_timed_with_sidekiq_pros_names_and_tags
    config = new_config(statsd: {port: @agent.addr[1], tags: ["env:test"], prefix: "sidekiq"}, queues: %w[default mail])
    with_server(config) do
      client = Deckhand::Client.new(config: config)
      2.times { |i| client.push("class" => "RecordJob", "args" => [i], "queue" => "mail") }
      client.push("class" => "FailJob", "args" => [1], "retry" => 0)
      wait_for(message: "three jobs' timings, flushed within a second") { lines.grep(/\Asidekiq\.jobs\.perform:/).size == 3 }
    end
    mail = "|#env:test,worker:RecordJob,queue:mail"
    failing = "|#env:test,worker:FailJob,queue:default"
    assert_equal 2, count("sidekiq.jobs.count", mail)
    assert_equal 2, count("sidekiq.jobs.success", mail)
    assert_equal 1, count("sidekiq.jobs.count", failing)
    assert_equal 1, count("sidekiq.jobs.failure", failing)
    assert_equal 0, count("sidekiq.jobs.success", failing)
    assert_equal 0, count("sidekiq.jobs.failure", mail)
    timings = lines.grep(/\Asidekiq\.jobs\.perform:/)
    assert_equal 3, timings.size
    timings.each { |line| assert_match(/\Asidekiq\.jobs\.perform:\d+(\.\d+)?\|ms\|#env:test,worker:\w+,queue:\w+\z/, line) }
  end

  class CountedChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 10, wait: 0.3}
    CALLS = Queue.new

    def perform_chunk(chunk) = CALLS << chunk.size
  end

  def test_a_chunk_counts_as_a_chunk_and_its_jobs_as_jobs
    CountedChunkJob::CALLS.clear
    config = new_config(statsd: {port: @agent.addr[1]}, concurrency: 1)
    Deckhand::Client.new(config: config).push_bulk("class" => CountedChunkJob.name, "args" => (1..4).zip)
    tags = "|#worker:StatsdTest__CountedChunkJob,queue:default" # a tag value has no colons
    with_server(config) do
      wait_for(message: "the chunk's jobs counted") { count("jobs.count", tags) == 4 }
      wait_for(message: "the chunk counted") { count("jobs.chunks", tags) == CountedChunkJob::CALLS.size }
    end
    assert_equal 4, CountedChunkJob::CALLS.size.times.sum { CountedChunkJob::CALLS.pop }
    assert_equal 4, count("jobs.success", tags)
  end

  def test_no_prefix_no_tags_and_an_absent_agent_never_fails_a_job
    port = @agent.addr[1]
    config = new_config(statsd: {port: port})
    with_server(config) do
      jid = Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [1])
      wait_for(message: "the datagrams") { lines.include?("jobs.success:1|c|#worker:RecordJob,queue:default") }
      assert_includes lines, "jobs.count:1|c|#worker:RecordJob,queue:default"
      assert lines.all? { |l| l.start_with?("jobs.", "redis.") }, "no prefix" # redis.*: the eviction watch's looks
      @agent.close # nobody listens now: sends fail with ECONNREFUSED, silently
      jids = Array.new(3) { |i| Deckhand::Client.new(config: config).push("class" => "RecordJob", "args" => [i]) }
      wait_for(message: "jobs to run with no agent") { (jids - Deckhand::TestJobs.runs.map(&:first)).empty? }
      assert_includes Deckhand::TestJobs.runs.map(&:first), jid
      assert_equal 0, redis.call("ZCARD", "retry")
    end
    @agent = UDPSocket.new # for teardown
  end

  def test_a_busy_process_packs_many_jobs_into_each_datagram
    statsd = Deckhand::Operations::StatsdReporter.new(Deckhand::Config::Statsd.new(port: @agent.addr[1]))
    500.times { |i| statsd.job("Job#{i % 3}", "default", 0.001 * i, i % 10 == 0) }
    statsd.flush
    packets = []
    while (packet = @agent.recv_nonblock(65_536, exception: false)) != :wait_readable
      packets << packet
    end
    assert packets.all? { |p| p.bytesize <= Deckhand::Operations::StatsdReporter::MAX_PACKET }
    assert_operator packets.size, :<, 50, "hundreds of jobs in a few dozen datagrams"
    @received = packets.flat_map { |p| p.split("\n") }
    assert_equal 500, lines.grep(/\Ajobs\.perform:/).size
    assert_equal 500, (0..2).sum { |k| count("jobs.count", "|#worker:Job#{k},queue:default") }
    assert_equal 50, (0..2).sum { |k| count("jobs.failure", "|#worker:Job#{k},queue:default") }
    statsd.close
  end

  def test_bad_settings_name_the_problem
    error = assert_raises(Deckhand::ConfigError) { new_config(statsd: {port: "8125"}) }
    assert_includes error.message, "statsd port must be an Integer"
    error = assert_raises(Deckhand::ConfigError) { new_config(statsd: {hots: "x"}) }
    assert_includes error.message, "unknown key :hots"
    error = assert_raises(Deckhand::ConfigError) { new_config(statsd: {prefix: "sidekiq."}) }
    assert_includes error.message, "statsd prefix must be dotted words"
    error = assert_raises(Deckhand::ConfigError) { new_config(statsd: {tags: ["a,b"]}) }
    assert_includes error.message, "statsd tags must be"
    assert_equal ["env:prod"], new_config(statsd: {"tags" => {env: "prod"}}).statsd.tags
  end
end
