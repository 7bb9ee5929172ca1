# frozen_string_literal: true

require "json"

module Sidekiq
  # A job read through Sidekiq's API in drop-in mode (Deckhand::API's record
  # underneath): what Sidekiq::Queue#each and the sets yield, or one built
  # from a job's Hash or JSON, as in Sidekiq.
  #
  #   job = Sidekiq::Queue.new("default").first
  #   job.klass; job.args; job.jid; job["retry"]; job.created_at; job.tags
  #   Sidekiq::JobRecord.new(json, "mailers").display_class   # => "UserMailer#welcome"
  class JobRecord
    MAILERS = %w[ActionMailer::DeliveryJob ActionMailer::MailDeliveryJob].freeze
    GLOBAL_ID = "_aj_globalid"

    attr_reader :record

    # item: a job's JSON or Hash (or a Deckhand::API record, as the drop-in
    # API builds them); queue_name: the queue it was read from.
    def initialize(item, queue_name = nil)
      @record = case item
      when Deckhand::API::JobRecord then item
      when Hash then Deckhand::API::JobRecord.new(JSON.generate(item))
      else Deckhand::API::JobRecord.new(item.to_s)
      end
      @given = item if item.is_a?(Hash) # the caller's Hash itself, as Sidekiq 8 keeps it
      @queue_name = queue_name
    end

    def item = @given || @record.item

    def value = @record.raw

    def jid = @record.jid

    def bid = @record["bid"]

    def klass = @record.klass

    # What Sidekiq shows for bytes that are not a job: the bytes, as the one argument.
    def args = @record.corrupt? ? [value] : @record.args

    def queue = @queue_name || @record.queue

    def tags = @record["tags"] || []

    def [](key) = @record[key]

    def created_at = @record.created_at

    def enqueued_at = @record.enqueued_at

    def latency = @record.latency

    def error_class = @record.error_class

    def error_message = @record.error_message

    def error? = @record.error?

    # Read once, nil when none was stored.
    def error_backtrace
      return @error_backtrace if defined?(@error_backtrace)
      @error_backtrace = @record["error_backtrace"] && @record.backtrace
    end

    # Active Job's wrapped class, and a mailer's Mailer#method.
    def display_class
      return @record["display_class"] if @record["display_class"]
      return @record.display_class unless MAILERS.include?(wrapped)
      Array(active_job["arguments"]).first(2).join("#")
    end

    # Active Job's arguments without its bookkeeping keys (a record's Global
    # ID as its URI); a mailer's without the mailer, method and delivery.
    def display_args
      return encrypted(@record.display_args) if @record["encrypt"] && !wrapped
      return @record.display_args unless wrapped
      arguments = plain(Array(active_job["arguments"]))
      case wrapped
      when "ActionMailer::DeliveryJob" then arguments.drop(3)
      when "ActionMailer::MailDeliveryJob" then arguments.drop(3).first.to_h.values_at("params", "args")
      else arguments
      end
    end

    private

    # Sidekiq Enterprise's encrypt: the last argument is the secret bag.
    def encrypted(arguments) = (arguments.is_a?(Array) && !arguments.empty?) ? arguments[0..-2] + ["[encrypted data]"] : arguments

    def wrapped = @record["wrapped"].is_a?(String) ? @record["wrapped"] : nil

    def active_job = args.first.is_a?(Hash) ? args.first : {}

    def plain(value)
      case value
      when Array then value.map { |v| plain(v) }
      when Hash
        return value[GLOBAL_ID] if value.size == 1 && value.key?(GLOBAL_ID)
        value.reject { |key, _| key.start_with?("_aj_") }.transform_values { |v| plain(v) }
      else value
      end
    end
  end
end
