# frozen_string_literal: true

class ApplicationJob < ActiveJob::Base
  # What the jobs did, with the process that did it, for the test to read.
  def record(*entry) = Sidekiq.redis { |conn| conn.call("RPUSH", "app:log", JSON.generate([*entry, Process.pid])) }
end
