# frozen_string_literal: true

require "time"
require "date"
require_relative "../store/records/deploy_marks"

module Sidekiq
  # Deploy marks in drop-in mode: a label on the minute of a deploy, which
  # Sidekiq::Metrics::Query returns with its results (as `marks`). Stored
  # where Sidekiq keeps them, so a fleet mixing both sees the same marks.
  #
  #   Sidekiq::Deploy.mark!("v42 faster reports")   # in a deploy script
  #   Sidekiq::Deploy.mark!                         # labelled with the last git commit
  #   Sidekiq::Deploy.new.fetch(Date.today)         # => {"2026-03-01T12:05:00Z" => "v42 faster reports"}
  class Deploy
    # The current commit, "abc1234 Its subject", as Sidekiq labels a deploy
    # (a callable, as Sidekiq 8's, for code that labels its own marks alike).
    LABEL_MAKER = -> do
      IO.popen(%w[git log -1 --format=%h\ %s], err: File::NULL, &:read).strip
    rescue SystemCallError => e
      raise ArgumentError, "Sidekiq::Deploy.mark! needs a label outside a git checkout (git: #{e.message})"
    end

    def self.mark!(label = nil) = new.mark!(label: label)

    # pool: a store of Sidekiq::RedisConnection.create, a Redis URL or
    # options (Sidekiq::Client.via takes the same); the default Redis otherwise.
    def initialize(pool = nil)
      @config = pool ? Deckhand::Client::Target.for(pool, "Sidekiq::Deploy.new(pool)").config_for(Deckhand.config) : Deckhand.config
    end

    # Marks the minute of `at`; false when this label was marked in the last minute.
    def mark!(at: Time.now, label: nil)
      label ||= LABEL_MAKER.call
      whence = at.utc
      minute = Time.utc(whence.year, whence.month, whence.day, whence.hour, whence.min)
      Deckhand::Store::Records::DeployMarks.mark(@config.store, minute, label)
    end

    # The marks of a UTC day: {"2026-03-01T12:05:00Z" => label}.
    def fetch(date = Time.now.utc.to_date) = Deckhand::Store::Records::DeployMarks.day(@config.store, date)
  end
end
