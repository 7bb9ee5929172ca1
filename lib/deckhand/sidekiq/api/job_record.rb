# frozen_string_literal: true

module Sidekiq
  # A job read through Sidekiq's API in drop-in mode (Deckhand::API's record
  # underneath): what Sidekiq::Queue#each and the sets yield.
  #
  #   job = Sidekiq::Queue.new("default").first
  #   job.klass; job.args; job.jid; job["retry"]; job.created_at
  class JobRecord
    attr_reader :record

    def initialize(record)
      @record = record
    end

    def item = @record.item

    def value = @record.raw

    def jid = @record.jid

    def klass = @record.klass

    def display_class = @record.display_class

    def args = @record.args

    def display_args = @record.display_args

    def queue = @record.queue

    def [](key) = @record[key]

    def created_at = @record.created_at

    def enqueued_at = @record.enqueued_at

    def latency = @record.latency

    def error_class = @record.error_class

    def error_message = @record.error_message

    def error? = @record.error?
  end
end
