# frozen_string_literal: true

require "test_helper"
require "deckhand/batch"
require "open3"
require_relative "../../support/web/web_helpers"

# The Batches pages through Rack: the list, one batch, the way to a failed
# job's entry, their bounds, and that viewing them enables nothing.
class WebBatchesTest < Minitest::Test
  include Deckhand::WebHelpers

  INDEX = Deckhand::Store::Layout::PlainBatches::INDEX

  def tracker = Deckhand::Batch::Tracker.new(Deckhand.config)

  # A batch of `jobs` jobs: the first `succeeded` succeed, then `failing`
  # fail (and will retry), then `dead` die. Listed at `rank` in the index.
  def batch(description, jobs: 4, succeeded: 0, failing: 0, dead: 0, rank: nil)
    batch = Deckhand::Batch.new
    batch.description = description
    jids = batch.jobs { jobs.times { |i| RecordJob.perform_async(i) } }
    jids.first(succeeded).each { |jid| tracker.success(batch.bid, jid) }
    jids[succeeded, failing].each { |jid| tracker.failure(batch.bid, {"jid" => jid, "class" => "RecordJob", "retry_count" => 1}, IOError.new("timed out #{jid}")) }
    jids[succeeded + failing, dead].each { |jid| tracker.death({"bid" => batch.bid, "jid" => jid, "class" => "RecordJob", "retry_count" => 2}, KeyError.new("gone #{jid}")) }
    redis.call("ZADD", INDEX, rank, batch.bid) if rank
    [batch, jids]
  end

  def rows(body) = body.scan('<td class="bar">').size

  def test_the_empty_list_explains_how_to_start
    response = get("/batches")
    assert_equal 200, response.status
    assert_includes response.body, "No batches in Redis"
    assert_includes response.body, %(require "deckhand/batch")
    assert_includes response.body, %(<a href="/batches" aria-current="page">Batches</a>)
    assert_includes get("/").body, %(<a href="/batches">Batches</a>), "in every page's navigation"
  end

  def test_the_list_shows_batches_newest_first_with_their_progress
    batch("older import", rank: 1)
    batch("newer import", jobs: 4, succeeded: 1, failing: 1, dead: 1, rank: 2)
    done, = batch("finished", jobs: 2, succeeded: 2, rank: 3)
    batch("retrying", jobs: 2, succeeded: 1, failing: 1, rank: 0)
    batch("buried", jobs: 2, succeeded: 1, dead: 1, rank: 0)
    batch("no jobs at all", jobs: 0, rank: 0)
    body = get("/batches").body
    assert_operator body.index("finished"), :<, body.index("newer import")
    assert_operator body.index("newer import"), :<, body.index("older import")
    assert_includes body, "1 of 4 succeeded, 1 failing, 1 dead, 1 waiting"
    assert_includes body, %(<rect class="done" x="0" y="0" width="250" height="10"/><rect class="failing" x="250" y="0" width="250" height="10"/>) +
      %(<rect class="dead" x="500" y="0" width="250" height="10"/>)
    assert_includes body, "2 of 2 succeeded"
    assert_includes body, %(<title>0 of 0 succeeded</title><rect class="done" x="0" y="0" width="1000" height="10"/>), "nothing to do: done"
    assert_includes body, %(<span class="badge good">succeeded</span>)
    assert_includes body, %(<span class="badge bad">a job died</span>)
    assert_includes body, %(<span class="badge">running</span>)
    assert_includes body, %(<span class="badge warn">complete, with failures</span>)
    assert_includes body, %(<span class="badge bad">complete, a job died</span>)
    assert_includes body, %(href="/batches/#{done.bid}")
  end

  def test_the_list_pages_are_bounded_whatever_the_query_says
    bids = Array.new(30) { |i| batch("import #{i}", jobs: 1, rank: i).first.bid }
    assert_equal 25, rows(get("/batches?per_page=100000").body), "per_page falls back to 25"
    assert_equal 10, rows(get("/batches?per_page=10").body)
    last = get("/batches?page=999999999999&per_page=10").body
    assert_equal 10, rows(last), "the page number is clamped to the last page"
    assert_includes last, bids.first
    assert_includes last, %(<span class="here" aria-current="page">3</span>)
    %w[page=-3 page=abc per_page=-1 page=1e9 per_page=%00].each do |query|
      response = get("/batches?#{query}")
      assert_equal 200, response.status, query
      assert_equal 25, rows(response.body), query
    end
  end

  def test_a_batch_page_shows_its_facts_callbacks_family_and_failures
    parent = Deckhand::Batch.new
    parent.description = "Import November"
    parent.on(:complete, "ImportCallbacks", "import_id" => 7)
    parent.on(:death, "ImportCallbacks")
    child = nil
    jids = parent.jobs do
      3.times { |i| RecordJob.perform_async(i) }
      child = Deckhand::Batch.new
      child.description = "Details of November"
      child.jobs { RecordJob.perform_async("detail") }
    end
    tracker.success(parent.bid, jids[0])
    tracker.failure(parent.bid, {"jid" => jids[1], "class" => "RecordJob", "retry_count" => 1}, IOError.new("webhook timed out"))
    tracker.death({"bid" => parent.bid, "jid" => jids[2], "class" => "RecordJob", "retry_count" => 2}, KeyError.new("no such row"))

    body = get("/batches/#{parent.bid}").body
    ["Import November", parent.bid, "1 of 3 succeeded, 1 failing, 1 dead", "First death", "ImportCallbacks#on_complete",
      "{&quot;import_id&quot;:7}", "ImportCallbacks#on_death", "webhook timed out", "no such row", "IOError", "KeyError",
      "Details of November", %(href="/batches/#{child.bid}"), %(<a href="/queues/default">default</a>)].each do |text|
      assert_includes body, text
    end
    assert_equal 1, body.scan(%(<span class="badge good">fired</span>)).size, "death fired"
    assert_equal 1, body.scan(%(<span class="badge">waiting</span>)).size, "complete waits for the child batch"
    assert_includes body, %(href="/batches/#{parent.bid}/jobs/#{jids[1]}?in=retries")
    assert_includes body, %(href="/batches/#{parent.bid}/jobs/#{jids[2]}?in=dead")
    assert_includes body, %(<span class="badge bad">dead</span>)

    child_page = get("/batches/#{child.bid}").body
    assert_includes child_page, %(<a href="/batches/#{parent.bid}">#{parent.bid}</a>), "a link to the parent"
    assert_includes child_page, "This batch has no callbacks."
    assert_includes get("/batches").body, "child of <a href=\"/batches/#{parent.bid}\">"
  end

  # A stretch at a time, whatever the count: follow the links to the end.
  def test_failures_come_a_bounded_stretch_at_a_time
    big, jids = batch("many failures", jobs: 60, failing: 60)
    seen = []
    path = "/batches/#{big.bid}?per_page=10"
    pages = 0
    while path
      body = get(path).body
      shown = body.scan(%r{/jobs/(\h{24})\?in=retries}).flatten
      assert_operator shown.size, :<=, 20, "about per_page failures a page"
      seen.concat(shown)
      pages += 1
      path = body[/href="([^"]+)" id="more-failures"/, 1]&.gsub("&amp;", "&")
    end
    assert_equal jids.sort, seen.uniq.sort, "every failure, across #{pages} pages"
    assert_operator pages, :>=, 3
    assert_includes get("/batches/#{big.bid}?per_page=10").body, "60 failing now"
    %w[cursor=-1 cursor=abc cursor=99999999999999999999999 per_page=1000].each do |query|
      response = get("/batches/#{big.bid}?#{query}")
      assert_equal 200, response.status, query
      assert_operator response.body.scan("?in=retries").size, :>=, 1, query
    end
  end

  def test_a_few_failures_show_latest_first_on_one_page
    small, jids = batch("few failures", jobs: 3, failing: 3)
    redis.call("HSET", Deckhand::Store::Layout::PlainBatches.failed(small.bid), jids[1], JSON.generate("class" => "RecordJob",
      "error_class" => "IOError", "error_message" => "latest", "failed_at" => (Time.now.to_f * 1000).to_i + 60_000))
    body = get("/batches/#{small.bid}").body
    assert_equal jids[1], body[%r{/jobs/(\h{24})\?in=retries}, 1]
    refute_includes body, "more-failures"
  end

  def test_a_failure_links_to_its_entry_in_the_retry_or_dead_set
    batch, jids = batch("links", jobs: 3, failing: 2)
    retrying, dead, elsewhere = jids
    add_to("retry", retry_job("decoy", "args" => [retrying]))  # the jid inside another job's arguments
    add_to("retry", retry_job(retrying, "bid" => batch.bid))
    add_to("dead", retry_job(dead, "bid" => batch.bid))
    assert_redirect get("/batches/#{batch.bid}/jobs/#{retrying}?in=retries"), "/retries/#{ERB::Util.url_encode(key_of(:retries, retrying))}"
    assert_redirect get("/batches/#{batch.bid}/jobs/#{dead}?in=dead"), "/dead/#{ERB::Util.url_encode(key_of(:dead, dead))}"
    assert_redirect get("/batches/#{batch.bid}/jobs/#{dead}"), "/dead/#{ERB::Util.url_encode(key_of(:dead, dead))}" # found in the other set too
    response = get("/batches/#{batch.bid}/jobs/#{elsewhere}")
    assert_redirect response, "/batches/#{batch.bid}", notice: "not_in_sets.0"
    assert_includes follow(response).body, "neither the retry set nor the dead set"
  end

  def test_a_search_past_its_bound_goes_on_in_the_sets_filter_page
    batch, jids = batch("far", jobs: 1, failing: 1)
    budget = Deckhand::API::JobSet::SCAN_BUDGET
    Deckhand.config.store.pipelined do |pipe|
      budget.times { |i| pipe.call("ZADD", "retry", i, JSON.generate(retry_job(format("%024d", i)))) }
    end
    add_to("retry", retry_job(jids.first), score: budget + 1)
    assert_redirect get("/batches/#{batch.bid}/jobs/#{jids.first}"), "/retries?q=#{jids.first}&from=#{budget}"
    assert_includes get("/retries?q=#{jids.first}&from=#{budget}").body, "1 found"
  end

  def test_unknown_and_malformed_ids_are_not_found
    redis.call("SADD", "deckhand:batch:x:jids", "a") # what a bid with a colon would name
    ["/batches/nosuchbatch", "/batches/x%3Ajids", "/batches/#{"a" * 65}", "/batches/x:jids/jobs/a",
      "/batches/abc/jobs/#{"j" * 101}", "/batches/a/b"].each do |path|
      assert_equal 404, get(path).status, path
    end
    assert_equal 403, post("/batches", {}).status, "nothing here changes state"
  end

  def test_both_pages_carry_the_policy_and_no_inline_code
    batch, = batch("policy", failing: 1)
    ["/batches", "/batches/#{batch.bid}"].each do |path|
      response = get(path)
      nonce = response.headers["content-security-policy"][/script-src 'nonce-([^']+)'/, 1]
      assert nonce, path
      assert_equal "no-store", response.headers["cache-control"]
      response.body.scan(/<(?:script|link)\b[^>]*>/).each { |tag| assert_includes tag, %(nonce="#{nonce}"), "#{path}: #{tag}" }
      refute_match(/<script(?![^>]*\bsrc=)/, response.body, path)
      refute_match(/<style\b|\sstyle=|\son[a-z]+=/, response.body, path)
    end
  end

  # A fresh process, as `deckhand web` is: the list and a batch render, the
  # batch read code loads only on the first visit, and nothing is installed.
  def test_viewing_batches_enables_nothing_in_the_web_process
    batch, = batch("seen from afar", failing: 1)
    script = <<~RUBY
      require "deckhand/web"
      loaded = -> { $LOADED_FEATURES.grep(%r{deckhand/batch}).map { |f| f[%r{deckhand/batch.*}] }.sort }
      before = loaded.call
      app = Rack::MockRequest.new(Deckhand::Web)
      statuses = [app.get("/batches").status, app.get("/batches/#{batch.bid}").status]
      config = Deckhand.config
      puts JSON.generate("before" => before, "after" => loaded.call, "statuses" => statuses,
        "middleware" => config.server_middleware.size, "death_handlers" => config.death_handlers.size,
        "final_handlers" => config.final_handlers.size, "enabled" => !!defined?(Deckhand::Batch.install))
    RUBY
    out, err, status = Open3.capture3({"REDIS_URL" => Deckhand::RedisHarness.url}, RbConfig.ruby, "-I#{File.expand_path("../../../lib", __dir__)}", "-e", script)
    assert status.success?, err
    report = JSON.parse(out)
    assert_equal [], report["before"], "requiring deckhand/web loads no batch code"
    assert_equal [200, 200], report["statuses"]
    assert_equal ["deckhand/batch/listing.rb", "deckhand/batch/status.rb"], report["after"]
    assert_equal [0, 0, 0, false], report.values_at("middleware", "death_handlers", "final_handlers", "enabled")
  end
end
