# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# Retries and dead grouped by error class and by job class, counted in Redis;
# each group leads to its entries and to actions on all of them.
class WebTriageTest < Minitest::Test
  include Deckhand::WebHelpers

  def seed
    now = Time.now.to_f
    7.times { |i| add_to("retry", retry_job(format("t%023d", i), "class" => "MailJob", "error_class" => "Net::ReadTimeout"), score: now + i) }
    3.times { |i| add_to("retry", retry_job(format("r%023d", i), "error_class" => "Quote\"Error"), score: now + 10 + i) }
    2.times do |i|
      add_to("retry", retry_job(format("w%023d", i), "class" => "Sidekiq::ActiveJob::Wrapper", "wrapped" => "ReportJob",
        "error_class" => "Net::ReadTimeout"), score: now + 20 + i)
    end
    redis.call("ZADD", "retry", now + 30, "not json at all")
  end

  def test_the_groups_match_the_set
    seed
    groups = api.retries.groups
    assert groups.complete?
    assert_equal [["Net::ReadTimeout", 9], ["Quote\"Error", 3], ["", 1]], groups.errors.map { |g| [g.name, g.count] }
    assert_equal [["MailJob", 7], ["RecordJob", 3], ["ReportJob", 2], ["", 1]], groups.classes.map { |g| [g.name, g.count] }
    # each group's filter finds exactly its entries
    (groups.errors + groups.classes).reject { |g| g.name.empty? }.each do |group|
      assert_equal group.count, api.retries.count_matching(group.filter), group.name
    end
  end

  def test_the_groups_are_counted_a_bounded_stretch_at_a_time
    seed
    partial = api.retries.groups(budget: 5)
    refute partial.complete?
    assert_equal 5, partial.examined
    assert_equal [["MailJob", 5]], partial.classes.map { |g| [g.name, g.count] }
  end

  def test_the_grouped_page_links_each_group_to_its_entries_and_actions
    seed
    body = get("/retries?view=groups").body
    assert_includes body, "<h2>Retries by error and class <small>13</small></h2>"
    assert_includes body, "All 13 entries counted"
    filter = ERB::Util.url_encode(%("error_class":"Net::ReadTimeout"))
    assert_includes body, %(<td class="key"><a href="/retries?q=#{filter}">Net::ReadTimeout</a></td>\n        <td class="num" data-label="Entries">9</td>)
    assert_includes body, %(href="/retries?q=#{filter}&amp;confirm=delete">Delete…</a>)
    assert_includes body, %(href="/retries?q=#{ERB::Util.url_encode(%("wrapped":"ReportJob"))}">ReportJob</a>)
    list = get("/retries?q=#{filter}").body
    assert_includes list, %(<strong id="filter-total">9 matches in the whole set.</strong>)
    confirm = get("/retries?q=#{filter}&confirm=kill").body
    assert_includes confirm, "move to the dead set 9 jobs</strong>"
    response = post("/retries", "action" => "kill", "all" => "1", "q" => %("error_class":"Net::ReadTimeout"), "count" => "9")
    assert_equal "killed.9", notice_cookie(response)
    assert_equal 9, redis.call("ZCARD", "dead")
    assert_equal 4, redis.call("ZCARD", "retry")
  end

  def test_the_list_links_to_the_grouped_view
    seed
    assert_includes get("/dead").body, %(href="/dead?view=groups")
    refute_includes get("/scheduled").body, "view=groups"
  end

  def test_a_metrics_class_links_to_its_retries_and_dead
    tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
    tally.record("MailJob", 2.0, true)
    Deckhand.config.store.pipelined { |pipe| Deckhand::Store::Records::ExecutionMetrics.flush(pipe, tally.take) }
    seed
    body = get("/metrics").body
    quoted = ERB::Util.url_encode(%("MailJob"))
    assert_includes body, %(<a href="/retries?q=#{quoted}">retries</a> · <a href="/dead?q=#{quoted}">dead</a>)
    assert_includes get("/metrics/MailJob").body, %(<a href="/retries?q=#{quoted}">retries</a> · <a href="/dead?q=#{quoted}">dead</a>)
    assert_includes get("/retries?q=#{quoted}").body, %(<strong id="filter-total">7 matches in the whole set.</strong>)
  end
end
