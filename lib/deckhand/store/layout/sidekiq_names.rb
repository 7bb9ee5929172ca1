# frozen_string_literal: true

module Deckhand
  class Store
    module Layout
      # Keys both modes name as Sidekiq does, so Sidekiq's own pages and
      # features find them beside Deckhand (its Metrics tab, iterable jobs,
      # profiles, the Enterprise leader): a daily counter takes its stat's name
      # from the layout (Plain::PROCESSED, or the fleet's tag in cluster
      # mode), the others carry no tag in either. Layout::Plain and
      # Layout::Cluster's names each take them from here.
      #
      #   layout = Deckhand::Store::Layout::Plain
      #   layout.daily(layout::PROCESSED, "2026-11-24")   # => "stat:processed:2026-11-24"
      #   layout.iteration("b4a577edbccf")                # => "it-b4a577edbccf"
      module SidekiqNames # :nodoc:
        def daily(stat, date) = "#{stat}:#{date}"

        # Hash of a UTC day's deploy marks (minute as ISO 8601 => label), and
        # the lock that keeps one label from being marked twice a minute.
        def deploy_marks(date) = "#{date}-marks"

        def deploy_lock(label) = "deploylock-#{label}"

        # Hash of an iterable job's progress: "ex" executions, "c" the JSON
        # cursor, "rt" seconds run, "cancelled" epoch seconds once cancelled.
        # Expires 30 days after the last write.
        def iteration(jid) = "it-#{jid}"

        # Job profiles, Sidekiq 8's layout: a sorted set of profile keys
        # scored by when each expires, and per profile a hash (started_at,
        # jid, type, token, size, elapsed, data: the gzipped profile, sid:
        # the viewer's id once uploaded) at "<token>-<jid>", expiring with it.
        def profiles = "profiles"

        def profile(token, jid) = "#{token}-#{jid}"

        # String: the identity of the Sidekiq Enterprise process that leads the
        # fleet (its periodic jobs and chores); Sidekiq's ProcessSet#leader reads it.
        def sidekiq_leader = "dear-leader"

        # Sorted set a plugin keeps jobs in under a name of its own
        # (sidekiq-failures' "failed"), read through Sidekiq::JobSet.new(name):
        # the name, in either mode, as the plugin writes it.
        def named_set(name) = name.to_s
      end
    end
  end
end
