# frozen_string_literal: true

require "forwardable"
require "deckhand/api"

module Sidekiq
  # Sidekiq 8's profiles in drop-in mode (Deckhand::API::Profile): what
  # Deckhand's profiler and Sidekiq's keep, the newest first. A snapshot:
  # build another to see newer profiles.
  #
  #   set = Sidekiq::ProfileSet.new
  #   set.size
  #   set.each { |record| puts "#{record.key} #{record.type} #{record.elapsed}s #{record.size} bytes" }
  #   File.binwrite("profile.json.gz", set.first.data)
  class ProfileSet
    include Enumerable

    def initialize
      @records = Deckhand::API::Profile.all(Sidekiq.default_configuration.config).map { |profile| ProfileRecord.new(profile) }
    end

    def size = @records.size

    def each(&) = @records.each(&)
  end

  # One profile: started_at (a Time), jid, type (an Active Job's own
  # class), token, size (bytes), elapsed (seconds), key and data.
  class ProfileRecord
    extend Forwardable

    def_delegators :@profile, :started_at, :jid, :type, :token, :size, :elapsed, :key, :data

    def initialize(profile)
      @profile = profile
    end
  end
end
