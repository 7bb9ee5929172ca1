# frozen_string_literal: true

class HelloJob < ApplicationJob
  def perform(name) = record("hello", name, provider_job_id, self.class.queue_adapter.class.name)
end
