# frozen_string_literal: true

require_relative "../tab"
require_relative "../snapshot"
require_relative "../screen"

module Deckhand
  class CLI
    module Top
      # The first tab: the totals and throughput, the queues and the
      # processes at a glance (Snapshot laid out by Screen, as `--once`
      # prints it). Nothing to select or act on: the other tabs do that.
      #
      #   tab = OverviewTab.new(location: "redis://localhost:6379/0").load(api, filter: "")
      #   tab.lines(80, 20)   # => ["Processed 12  Failed 0 ...", ...]
      class OverviewTab < Tab
        def initialize(location:, locale: nil)
          super(locale: locale)
          @location = location
          @snapshot = nil
        end

        def name = t("top.overview.title")

        def load(api, filter: "")
          @snapshot = Snapshot.read(api, previous: @snapshot)
          @now = api.now
          self
        end

        # The snapshot's lines below Screen's own title (the frame has one).
        def lines(width, height)
          return [] unless @snapshot
          Screen.new(width: width, height: height + 1, locale: locale).lines(@snapshot, location: @location, now: @now, live: false).drop(1)
        end
      end
    end
  end
end
