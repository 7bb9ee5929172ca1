# frozen_string_literal: true

require "test_helper"
require_relative "../../support/web/web_helpers"
require_relative "../../support/iterable/iterable_helper"

# A job's page and the Busy page show an iterable job's interrupted runs,
# escaped: the cursor and the error class come from Redis.
class WebIterationHistoryTest < Minitest::Test
  include Deckhand::WebHelpers
  include IterableTestSetup

  HOSTILE = %q{</script><script>alert(1)</script>"'><img src=x onerror=alert(2)>}
  JID = "0123456789abcdef0123abcd"

  def test_a_retried_iterable_jobs_page_lists_its_runs_escaped
    save_state(JID, "ex" => "3", "c" => JSON.generate(HOSTILE), "rt" => "75.5", "dh_steps" => "1200")
    add_to("retry", retry_job(JID, "class" => "IterableJobs::CountJob"))
    page = get("/retries/#{key_of(:retries, JID)}").body
    assert_includes page, "<h3>Iterations</h3>"
    assert_match %r{<th>Interrupted</th><td>2 times</td>}, page
    assert_match %r{<td>2</td>\s*<td><time[^>]*>[^<]*</time></td>\s*<td><time[^>]*>[^<]*</time></td>\s*<td>error <strong>E#{Regexp.escape(CGI.escapeHTML(HOSTILE))}</strong></td>\s*<td>1,000</td>}, page
    assert_match %r{<td>time budget</td>\s*<td>200</td>}, page
    assert_includes page, CGI.escapeHTML(JSON.generate(HOSTILE)[0, 79])
    refute_includes page, HOSTILE
    refute_includes page, "<script>alert"
  end

  def test_a_job_without_iteration_state_has_no_iterations_section
    add_to("retry", retry_job(JID))
    page = get("/retries/#{key_of(:retries, JID)}").body
    refute_includes page, "Iterations"
    refute_includes page, "iteration-runs"
  end

  def test_the_busy_page_says_how_often_a_running_job_was_interrupted
    save_state(JID, "ex" => "2", "c" => "40", "rt" => "12.25", "dh_steps" => "40")
    Deckhand::Client.push("class" => "IterableJobs::GatedJob", "args" => [45], "jid" => JID)
    IterableJobs.open_gate(39) # item 40 waits
    with_server(iterable_config) do
      wait_for(message: "the resumed run's first save") { redis.call("HGET", "it-#{JID}", "ex") == "3" }
      page = wait_for(message: "the job on the Busy page") { (body = get("/busy").body).include?(JID) && body }
      assert_match %r{<details class="meta iteration-history"><summary>interrupted 2 times</summary>}, page
      assert_match %r{<td>time budget</td>\s*<td>200</td>}, page
      assert_includes page, "<strong>E#{CGI.escapeHTML(HOSTILE)}</strong>"
      refute_includes page, HOSTILE
      IterableJobs.open_gate(45)
      wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") }
    end
  end

  private

  # Two runs recorded: a time budget, then an error whose class and cursor are hostile.
  def save_state(jid, fields)
    runs = [
      {"run" => 1, "start" => Time.now.to_f - 120, "end" => Time.now.to_f - 100, "reason" => "time_budget", "steps" => 200, "cursor" => "200"},
      {"run" => 2, "start" => Time.now.to_f - 60, "end" => Time.now.to_f - 50, "reason" => "error", "error" => "E#{HOSTILE}",
       "steps" => 1000, "cursor" => JSON.generate(HOSTILE)}
    ]
    redis.call("HSET", "it-#{jid}", *fields.to_a.flatten, "dh_runs", JSON.generate(runs))
  end
end
