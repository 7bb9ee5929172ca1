# frozen_string_literal: true

require_relative "../periodic/sidekiq_schedule"

module Deckhand
  module Migration
    # What the check says about a sidekiq-cron or sidekiq-scheduler schedule:
    # one finding per entry (Periodic::SidekiqSchedule reads them).
    #
    #   ScheduleFindings.file("/srv/shop", "config/schedule.yml")
    #   # => [#<Finding :change "a schedule file ...">, #<Finding :works "schedule entry \"nightly\" ...">, ...]
    #   ScheduleFindings.file("/srv/shop", "config/schedule.yml", loaded_by: "config/deckhand.yml").first.verdict  # => :works
    module ScheduleFindings
      module_function

      # A schedule file of its own, which the application must name to load
      # (loaded_by: where it does already, or nil).
      def file(root, relative, loaded_by: nil)
        load = "load it with `periodic: {sidekiq_schedule: #{relative}}` in config/deckhand.yml " \
          "(or c.periodic { |cron| cron.load_sidekiq_schedule(\"#{relative}\") })"
        first = if loaded_by
          Finding.new(:works, "a schedule file (sidekiq-cron / sidekiq-scheduler), loaded by #{loaded_by}", [relative], nil)
        else
          Finding.new(:change, "a schedule file (sidekiq-cron / sidekiq-scheduler)", [relative], load)
        end
        [first] + entries(Periodic::SidekiqSchedule.file(File.join(root, relative)), [relative])
      rescue ConfigError => e
        [Finding.new(:change, "a schedule file Deckhand cannot read", [relative], e.message)]
      end

      # sidekiq-scheduler's section of config/sidekiq.yml, read by `deckhand -C`.
      def section(schedule, relative)
        items = Periodic::SidekiqSchedule.entries(Periodic::SidekiqSchedule.unwrap(schedule))
        [Finding.new(:works, "sidekiq-scheduler's schedule in the config file, read by `deckhand -C #{relative}`", [relative], nil)] +
          entries(items, [relative])
      rescue ConfigError => e
        [Finding.new(:change, "a schedule in the config file Deckhand cannot read", [relative], e.message)]
      end

      def entries(items, where)
        items.map do |item|
          what = "schedule entry #{item.name.inspect} (#{item.klass})"
          if item.disabled then Finding.new(:works, "#{what}: disabled, not loaded", where, nil)
          elsif item.problem then Finding.new(:change, what, where, item.problem)
          else Finding.new(:works, "#{what}: a periodic job, cron #{item.cron.inspect}", where, nil)
          end
        end
      end
    end
  end
end
