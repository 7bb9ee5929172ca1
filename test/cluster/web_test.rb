# frozen_string_literal: true

require "test_helper"
require_relative "../support/cluster_helpers"
require_relative "../support/web/web_helpers"

# The dashboard over cluster mode, through Rack: the set pages list, page,
# show and act on entries spread over queues that live on different primaries.
class ClusterWebTest < Minitest::Test
  include Deckhand::WebHelpers
  include Deckhand::ClusterHelpers

  QUEUES = %w[default mail billing].freeze # one on each primary

  def put(set, queue, job, score: Time.now.to_f)
    cluster.call("SADD", keys::QUEUES, queue)
    cluster.call("ZADD", keys.public_send(set, queue), score, JSON.generate(job))
  end

  # 30 failed jobs, jid "r00".."r29" padded to 24 characters, queues in turn, oldest first.
  def spread(set = :retry_set, count: 30, prefix: "r")
    (0...count).map do |i|
      jid = format("#{prefix}%02d", i).ljust(24, "0")
      put(set, QUEUES[i % 3], retry_job(jid, "queue" => QUEUES[i % 3], "error_class" => (i.even? ? "Net::ReadTimeout" : "KeyError")), score: 1000 + i)
      jid
    end
  end

  def zcard(set, queue) = cluster.call("ZCARD", keys.public_send(set, queue))

  def test_the_set_pages_list_entries_of_every_shard_in_score_order
    jids = spread
    response = get("/retries")
    assert_equal 200, response.status
    listed = response.body.scan(/r\d\d0{21}/).uniq
    assert_equal jids.first(25), listed, "page 1: the 25 soonest, across the three queues"
    assert_includes response.body, "Retries <small>30</small>", "the size summed over the shards"
    page2 = get("/retries?page=2").body.scan(/r\d\d0{21}/).uniq
    assert_equal jids.last(5), page2
    spread(:scheduled_set, prefix: "s")
    spread(:dead_set, prefix: "d")
    assert_equal "d29".ljust(24, "0"), get("/dead").body[/d\d\d0{21}/], "the dead set: newest first"
    assert_equal "s00".ljust(24, "0"), get("/scheduled").body[/s\d\d0{21}/]
  end

  def test_an_entry_page_filter_groups_and_find_work_across_shards
    jids = spread
    key = key_of(:retries, jids[29])
    response = get("/retries/#{key}")
    assert_equal 200, response.status
    assert_includes response.body, jids[29]
    filtered = get("/retries?q=KeyError").body
    assert_equal 15, filtered.scan(/r\d\d0{21}/).uniq.size
    groups = get("/retries?view=groups").body
    assert_includes groups, "Net::ReadTimeout"
    assert_includes groups, "KeyError"
    assert_redirect get("/find?jid=#{jids[13]}"), "/retries/#{key_of(:retries, jids[13])}"
  end

  def test_find_by_argument_reads_every_shard_and_every_queue
    put(:retry_set, "mail", retry_job("r" * 24, "queue" => "mail", "args" => [98431]))
    put(:dead_set, "billing", retry_job("d" * 24, "queue" => "billing", "args" => ["98431"]))
    cluster.call("SADD", keys::QUEUES, "default")
    cluster.call("LPUSH", keys.queue("default"), JSON.generate(retry_job("q" * 24, "args" => [{"id" => 98431}])))
    search = api.find_by_argument("98431")
    assert_equal [[:retries, "r" * 24], [:dead, "d" * 24], ["default", "q" * 24]], search.hits.map { |hit| [hit.place, hit.record.jid] }
    body = get("/find?jid=98431").body
    assert_includes body, %(href="/retries/#{ERB::Util.url_encode(key_of(:retries, "r" * 24))}")
    assert_includes body, %(href="/queues/default?page=1#jobs")
  end

  def test_retry_delete_and_kill_one_entry_act_on_its_shard
    jids = spread(count: 6)
    assert_redirect post("/retries/#{key_of(:retries, jids[1])}", "action" => "retry"), "/retries#entries", notice: "retried.1"
    assert_equal [jids[1]], jobs_in("mail").map { |j| j["jid"] }
    assert_redirect post("/retries/#{key_of(:retries, jids[2])}", "action" => "delete"), "/retries#entries", notice: "deleted.1"
    assert_equal 1, zcard(:retry_set, "billing")
    assert_redirect post("/retries/#{key_of(:retries, jids[5])}", "action" => "kill"), "/retries#entries", notice: "killed.1"
    assert_equal 0, zcard(:retry_set, "billing")
    assert_equal 1, zcard(:dead_set, "billing"), "killed into its own queue's dead set"
    assert_redirect post("/dead/#{key_of(:dead, jids[5])}", "action" => "retry"), "/dead#entries", notice: "retried.1"
    assert_equal [jids[5]], jobs_in("billing").map { |j| j["jid"] }
  end

  def test_checked_entries_across_shards_in_one_action
    jids = spread(count: 6)
    keys = jids.first(4).map { |jid| key_of(:retries, jid) }
    assert_redirect post("/retries", "action" => "retry", "keys" => keys), "/retries#entries", notice: "retried.4"
    assert_equal 2, jobs_in("default").size
    assert_equal 2, api.retries.size
  end

  def test_retry_all_kill_all_and_delete_all_cover_every_shard
    spread
    assert_redirect post("/retries", "action" => "kill", "all" => "1"), "/retries#entries", notice: "killed.30"
    assert_equal 10, zcard(:dead_set, "mail")
    assert_redirect post("/dead", "action" => "retry", "all" => "1"), "/dead#entries", notice: "retried.30"
    assert_equal 10, jobs_in("billing").size
    spread(:scheduled_set, count: 5, prefix: "s")
    assert_redirect post("/scheduled", "action" => "delete", "all" => "1"), "/scheduled#entries", notice: "deleted.5"
    assert_equal 0, api.scheduled.size
  end

  def test_acting_on_every_match_of_a_filter_across_shards
    spread
    assert_equal 200, get("/retries?q=KeyError&confirm=delete").status
    response = post("/retries", "action" => "delete", "all" => "1", "q" => "KeyError", "count" => "15")
    assert_redirect response, "/retries?q=KeyError#entries", notice: "deleted.15"
    assert_equal 15, api.retries.size
    assert_equal 0, api.retries.count_matching("KeyError")
  end

  def test_the_queue_busy_and_metrics_pages
    cluster.call("SADD", keys::QUEUES, "mail")
    cluster.call("LPUSH", keys.queue("mail"), JSON.generate("class" => "RecordJob", "args" => [1], "jid" => "q" * 24, "queue" => "mail"))
    assert_includes get("/queues").body, "mail"
    assert_includes get("/queues/mail").body, "q" * 24
    assert_redirect post("/queues/mail", "action" => "delete", "jid" => "q" * 24, "position" => "0"), "/queues/mail", notice: "deleted.1"
    assert_equal 200, get("/metrics").status
    assert_equal 200, get("/metrics/RecordJob").status
  end

  def test_the_front_page_and_the_live_counters_add_up_every_shard
    spread(count: 7)
    spread(:dead_set, count: 4, prefix: "d")
    json = JSON.parse(get("/stats.json").body)
    assert_equal [7, 0, 4], json.values_at("retries", "scheduled", "dead")
    body = get("/").body
    assert_includes body, %(data-stat="retries">7<)
    assert_includes get("/queues").body, %(data-live-stat="dead">4<), "the live header of every other page"
    scrape = get("/metrics?format=prometheus").body
    assert_includes scrape, "deckhand_retry_jobs 7"
    assert_includes scrape, "deckhand_dead_jobs 4"
  end

  def test_the_front_page_shows_which_primary_holds_which_queue
    %w[default mail reports critical low bulk].each { |queue| keys.queue(queue) }
    body = get("/").body
    placement = Deckhand::API.new.placement
    assert_equal 3, placement.primaries.size
    placement.primaries.each do |primary|
      assert_includes body, %(<tr><th>#{primary.address}</th><td>33%: #{primary.queues.join(", ")}</td></tr>)
    end
  end

  def test_the_busy_page_shows_processes_and_what_they_run
    store = Deckhand.config.store
    running = {"t1" => Struct.new(:queue, :payload, :run_at).new("mail", JSON.generate(retry_job("b" * 24, "queue" => "mail")), Time.now.to_i)}
    info = JSON.generate("hostname" => "box", "pid" => 7, "concurrency" => 5, "queues" => QUEUES, "tag" => "app")
    store.pipelined do |pipe|
      Deckhand::Store::Records::ProcessRecord.write(pipe, store.layout, "box:7:abc", info: info, running: running, inflight: 1, rtt_us: 100,
        quiet: false, rss_kb: 1000, ttl: 60)
    end
    body = get("/busy").body
    assert_includes body, "box:7:abc"
    assert_includes body, "b" * 24
    assert_redirect post("/busy", "signal" => "quiet", "identity" => "box:7:abc"), "/busy", notice: "quieted.0"
    assert_equal ["TSTP"], cluster.call("LRANGE", keys.signals("box:7:abc"), 0, -1)
  end
end
