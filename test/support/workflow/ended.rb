# frozen_string_literal: true

require "json"

module Deckhand
  # Waits for a workflow's end in a test; one that does not end in time fails
  # with what Redis holds of it, so a rare miss can be read from the log
  # alone: its steps' states, the queues, the retry and dead sets, and every
  # server the fleet lists (a server left by another test takes jobs too).
  module WorkflowEnded
    def ended(flow, timeout: 20)
      flow.wait(timeout: timeout)
    rescue Deckhand::ResultTimeout => e
      flunk(workflow_report(flow, e.message))
    end

    private

    def workflow_report(flow, headline)
      steps = Deckhand::Workflow.steps(flow.id).map { |jid, step| "  #{jid} #{step["state"]} #{JSON.parse(step["info"])["name"]} waits #{step["wait"]}" }
      queues = redis.call("SMEMBERS", "queues").to_h { |queue| [queue, redis.call("LRANGE", "queue:#{queue}", 0, -1)] }
      [headline, "status: #{Deckhand::Workflow.status(flow.id).inspect}", "steps:", *steps,
        "queues: #{queues.inspect}", "retry: #{redis.call("ZRANGE", "retry", 0, -1).inspect}",
        "dead: #{redis.call("ZRANGE", "dead", 0, -1).inspect}", "processes: #{redis.call("SMEMBERS", "processes").inspect}"].join("\n")
    end
  end
end
