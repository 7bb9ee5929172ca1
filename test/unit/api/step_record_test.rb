# frozen_string_literal: true

require "test_helper"
require "deckhand/api"

# A workflow step's record as its page reads it: what Redis holds is read,
# never trusted, so a step whose fields another hand wrote still shows.
class StepRecordTest < Minitest::Test
  StepRecord = Deckhand::API::StepRecord

  def setup = nil # no Redis needed

  def test_a_step_reads_its_job_and_why_it_failed
    step = StepRecord.new("j1", "info" => '{"name":"Report","class":"ReportJob","queue":"mail"}', "state" => "d",
      "on" => "s", "parents" => "j0", "errors" => '{"error_class":"ArgumentError"}')
    assert_equal ["Report", "ReportJob", "mail", "dead", :success, ["j0"]], [step.name, step.job_class, step.queue, step.state, step.condition, step.parents]
    assert_equal({"error_class" => "ArgumentError"}, step.error)
  end

  def test_fields_that_are_no_json_object_read_as_absent
    ["[1, 2]", "12", "not json", nil].each do |raw|
      step = StepRecord.new("j1", "info" => raw, "state" => "q", "errors" => raw)
      assert_equal ["", "", "queued"], [step.name, step.job_class, step.state], "info #{raw.inspect}"
      assert_nil step.error, "errors #{raw.inspect}"
    end
  end
end
