# frozen_string_literal: true

# A job continuation (Rails 8.1): one step over `count` items, its cursor
# saved after each, so a server that stops interrupts it between two items
# and another server resumes it from the next.
class StepsJob < ApplicationJob
  include ActiveJob::Continuable

  self.resume_options = {wait: 0}

  def perform(count)
    step :items do |step|
      ((step.cursor || 0)...count).each do |item|
        record("item", item)
        sleep 0.1
        step.set!(item + 1)
      end
    end
    record("done", resumptions)
  end
end
