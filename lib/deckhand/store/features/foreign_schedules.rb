# frozen_string_literal: true

require_relative "../json_object"

module Deckhand
  class Store
    module Features
      # The enabled entries of the other schedulers a Sidekiq fleet may run on
      # the same Redis: sidekiq-cron (a set of entry keys, each a hash with
      # "klass" and "status") and sidekiq-scheduler (a hash of name => JSON
      # with "class", and its states hash). Read only; a key of another type
      # than theirs is left alone.
      #
      #   ForeignSchedules.read(store)
      #   # => [#<struct Entry scheduler="sidekiq-cron", name="nightly", klass="NightlyJob", key="cron_job:default:nightly">]
      module ForeignSchedules # :nodoc:
        Entry = Struct.new(:scheduler, :name, :klass, :key)
        private_constant :Entry
        # Not Deckhand's keys (no layout names them), read only: the sets of
        # sidekiq-cron's entries (1.x; 2.x's default namespace), each member the
        # key of an entry's hash; sidekiq-scheduler's schedule (name => JSON)
        # and each entry's state (name => JSON, "enabled").
        SETS = %w[cron_jobs cron_jobs:default].freeze
        SCHEDULES = "schedules"
        STATES = "sidekiq-scheduler:states"
        TYPES = ([["set"]] * SETS.size + [["hash"], ["hash"]]).flatten.freeze

        module_function

        # At most four round trips, the types checked before each read.
        def read(store)
          return [] if store.cluster? # Sidekiq and its schedulers run on a plain Redis only
          keys = SETS + [SCHEDULES, STATES]
          types = store.pipelined { |pipe| keys.each { |key| pipe.call("TYPE", key) } }
          usable = keys.zip(types, TYPES).select { |_key, type, wanted| type == wanted }.map(&:first)
          return [] if usable.empty?
          replies = store.pipelined { |pipe| usable.each { |key| pipe.call(SETS.include?(key) ? "SMEMBERS" : "HGETALL", key) } }
          found = usable.zip(replies).to_h
          cron(store, SETS.flat_map { |key| found[key] || [] }.uniq) + scheduler(found[SCHEDULES] || {}, found[STATES] || {})
        end

        def cron(store, keys)
          return [] if keys.empty?
          types = store.pipelined { |pipe| keys.each { |key| pipe.call("TYPE", key) } }
          keys = keys.zip(types).select { |_key, type| type == "hash" }.map(&:first)
          return [] if keys.empty?
          fields = store.pipelined { |pipe| keys.each { |key| pipe.call("HMGET", key, "name", "klass", "status") } }
          keys.zip(fields).filter_map do |key, (name, klass, status)|
            next if klass.to_s.empty? || status == "disabled"
            Entry.new("sidekiq-cron", name || key.split(":").last, klass, key)
          end
        end

        def scheduler(schedules, states)
          schedules.filter_map do |name, raw|
            spec = JsonObject.record(raw)
            klass = spec["class"] || spec["klass"]
            next unless klass.is_a?(String) && !klass.empty?
            next if spec["enabled"] == false || JsonObject.record(states[name])["enabled"] == false
            Entry.new("sidekiq-scheduler", name, klass, "#{SCHEDULES} #{name}")
          end
        end
      end
    end
  end
end
