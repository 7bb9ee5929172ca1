# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"

# "Which job classes got this error, since when?": the error × class table
# of the grouped view, the combined filters each of its lines leads to, the
# page size, and the confirmed actions on exactly such a filter.
class WebTriageTableTest < Minitest::Test
  include Deckhand::WebHelpers

  T0 = 1_764_000_000.25

  # MailJob and ReportJob (Active Job) both time out; MailJob also fails
  # with another error; RecordJob mentions "MailJob" in its arguments only.
  def seed
    5.times do |i|
      add_to("retry", retry_job(format("t%023d", i), "class" => "MailJob", "error_class" => "Net::ReadTimeout", "failed_at" => T0 + (i * 60)), score: T0 + i)
    end
    2.times do |i|
      add_to("retry", retry_job(format("q%023d", i), "class" => "MailJob", "error_class" => "Quote\"Error", "failed_at" => T0 + 1000 + i), score: T0 + 10 + i)
    end
    3.times do |i|
      add_to("retry", retry_job(format("w%023d", i), "class" => "Sidekiq::ActiveJob::Wrapper", "wrapped" => "ReportJob",
        "error_class" => "Net::ReadTimeout", "failed_at" => T0 - 500 + i), score: T0 + 20 + i)
    end
    add_to("retry", retry_job("r" * 24, "args" => ["MailJob"], "error_class" => "Net::ReadTimeout", "failed_at" => T0), score: T0 + 30)
  end

  def cell(groups, error, job_class) = groups.cells.fetch(error).find { |c| c.job_class == job_class }

  def test_the_table_counts_each_error_by_class_with_its_first_and_last_failure
    seed
    groups = api.retries.groups
    assert_equal ["Net::ReadTimeout", "Quote\"Error"], groups.cells.keys
    assert_equal [["ReportJob", 3], ["MailJob", 5], ["RecordJob", 1]].sort, groups.cells["Net::ReadTimeout"].map { |c| [c.job_class, c.count] }.sort
    mail = cell(groups, "Net::ReadTimeout", "MailJob")
    assert_equal [5, Time.at(T0), Time.at(T0 + 240)], [mail.count, mail.first_at, mail.last_at]
    report = cell(groups, "Net::ReadTimeout", "ReportJob")
    assert_equal({error: "Net::ReadTimeout", wrapped: "ReportJob"}, report.filter.params)
    # each line's filter finds exactly its entries, in the list and in a count
    groups.cells.values.flatten.each do |c|
      assert_equal c.count, api.retries.count_matching(c.filter.texts), "#{c.error} × #{c.job_class}"
      assert_equal c.count, api.retries.filter(c.filter.texts, limit: 100).first.size
    end
  end

  def test_a_partial_count_still_gives_first_and_last_of_what_it_read
    seed
    mail = cell(api.retries.groups(budget: 3), "Net::ReadTimeout", "MailJob")
    assert_equal [3, Time.at(T0), Time.at(T0 + 120)], [mail.count, mail.first_at, mail.last_at]
  end

  def test_the_grouped_page_links_each_line_to_its_list_and_its_actions
    seed
    body = get("/retries?view=groups").body
    assert_includes body, %(<table class="groups cross stack" id="cross")
    link = "/retries?class=MailJob&amp;error=Net%3A%3AReadTimeout"
    assert_includes body, %(<td class="key"><a href="#{link}">MailJob</a></td>\n        <td class="num" data-label="Entries">5</td>)
    assert_includes body, %(<time datetime="#{Time.at(T0).utc.iso8601(3)}")
    assert_includes body, %(<time datetime="#{Time.at(T0 + 240).utc.iso8601(3)}")
    assert_includes body, %(href="#{link}&amp;confirm=retry">Retry now…</a>)
    assert_includes body, %(href="/retries?wrapped=ReportJob&amp;error=Net%3A%3AReadTimeout&amp;confirm=kill">Kill…</a>)
  end

  def test_class_error_and_text_filter_together
    seed
    body = get("/retries?class=MailJob&error=Net::ReadTimeout").body
    assert_equal 5, body.scan('name="keys[]"').size
    assert_includes body, %(<strong id="filter-total">5 matches in the whole set.</strong>)
    assert_includes body, "searched for those with error Net::ReadTimeout, of class MailJob:"
    # the text narrows it further; the exact class leaves out an argument that names it
    narrowed = get("/retries?class=MailJob&error=Net::ReadTimeout&q=t#{"0" * 22}3").body
    assert_equal 1, narrowed.scan('name="keys[]"').size
    assert_includes get("/retries?q=MailJob&error=Net::ReadTimeout").body, %(<strong id="filter-total">6 matches in the whole set.</strong>)
    # the form keeps every field
    assert_includes body, %(<input type="search" name="class" value="MailJob")
    assert_includes body, %(<input type="search" name="error" value="Net::ReadTimeout")
  end

  def test_page_size
    now = Time.now.to_f
    60.times { |i| add_to("retry", retry_job(format("p%023d", i)), score: now + i) }
    assert_equal 10, get("/retries?per_page=10").body.scan('name="keys[]"').size
    assert_equal 50, get("/retries?per_page=50").body.scan('name="keys[]"').size
    assert_equal 25, get("/retries?per_page=33").body.scan('name="keys[]"').size, "only the offered sizes"
    body = get("/retries?per_page=10&error=RuntimeError").body
    assert_equal 10, body.scan('name="keys[]"').size
    assert_includes body, %(<a href="/retries?error=RuntimeError&amp;per_page=50">50</a>)
    assert_includes body, %(<a href="/retries?error=RuntimeError&amp;per_page=10" aria-current="true">10</a>)
    assert_includes body, %(<input type="hidden" name="per_page" value="10">)
  end

  def test_retry_all_of_one_class_and_error_acts_on_exactly_those
    seed
    confirm = get("/retries?class=MailJob&error=Net::ReadTimeout&confirm=retry").body
    assert_includes confirm, "send to their queues now 5 jobs</strong>: those of the 11 in retries with error Net::ReadTimeout, of class MailJob."
    assert_includes confirm, %(<input type="hidden" name="class" value="MailJob">)
    assert_includes confirm, %(<input type="hidden" name="error" value="Net::ReadTimeout">)
    response = post("/retries", "action" => "retry", "all" => "1", "class" => "MailJob", "error" => "Net::ReadTimeout", "count" => "5")
    assert_redirect response, "/retries?class=MailJob&error=Net%3A%3AReadTimeout#entries", notice: "retried.5"
    assert_equal 5, redis.call("LLEN", "queue:default")
    assert_equal 6, redis.call("ZCARD", "retry")
    left = api.retries.groups
    assert_nil cell(left, "Net::ReadTimeout", "MailJob")
    assert_equal 3, cell(left, "Net::ReadTimeout", "ReportJob").count
    assert_equal 2, cell(left, "Quote\"Error", "MailJob").count
  end

  def test_nothing_is_done_when_the_filter_matches_more_than_confirmed
    seed
    response = post("/retries", "action" => "delete", "all" => "1", "wrapped" => "ReportJob", "error" => "Net::ReadTimeout", "count" => "2")
    assert_redirect response, "/retries?wrapped=ReportJob&error=Net%3A%3AReadTimeout&confirm=delete", notice: "changed.0"
    assert_equal 11, redis.call("ZCARD", "retry")
  end

  def test_a_cross_site_bulk_action_on_a_filter_is_refused
    seed
    response = post_from("/retries", {"action" => "delete", "all" => "1", "class" => "MailJob", "error" => "Net::ReadTimeout", "count" => "5"}, site: "cross-site")
    assert_equal 403, response.status
    assert_equal 11, redis.call("ZCARD", "retry")
  end

  def test_the_table_and_the_filters_escape_what_they_show
    add_to("dead", retry_job("x" * 24, "class" => "<script>alert(1)</script>", "error_class" => "\"><img src=x onerror=alert(2)>"))
    body = get("/dead?view=groups").body
    refute_includes body, "<script>alert(1)"
    refute_includes body, "<img src=x"
    assert_includes body, "&lt;script&gt;alert(1)&lt;/script&gt;"
    list = get("/dead?class=#{ERB::Util.url_encode("<script>alert(1)</script>")}&error=#{ERB::Util.url_encode("\"><img src=x>")}").body
    refute_includes list, "<script>alert(1)"
    refute_includes list, "\"><img"
  end

  def test_the_lists_show_when_each_job_failed
    add_to("retry", retry_job("f" * 24, "failed_at" => T0))
    body = get("/retries").body
    assert_includes body, "<th>Failed</th>"
    assert_includes body, %(<td class="failed-at" data-label="Failed"><time datetime="#{Time.at(T0).utc.iso8601(3)}")
  end
end
