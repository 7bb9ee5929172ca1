# frozen_string_literal: true

module Deckhand
  module Periodic
    # Compares this process's periodic entries with the schedule the leader
    # stored in Redis, and names each difference, for the warning a process
    # whose configuration disagrees logs (the leader's schedule is the one
    # that runs).
    #
    #   ScheduleCheck.differences(entries, schedule["entries"])
    #   # => ["nightly: cron \"0 3 * * *\" here, \"0 2 * * *\" on the leader", "digest: only here"]
    module ScheduleCheck
      module_function

      def describe(entries) = entries.to_h { |entry| [entry.name, entry.to_h] }

      def differences(entries, theirs, there: "on the leader")
        ours = describe(entries)
        theirs = theirs.is_a?(Hash) ? theirs : {}
        (ours.keys | theirs.keys).sort.filter_map do |name|
          mine = ours[name]
          other = theirs[name]
          next "#{name}: only #{there}" unless mine
          next "#{name}: only here" unless other
          fields = mine.keys.reject { |key| mine[key] == other[key] }
          next if fields.empty?
          "#{name}: " + fields.map { |key| "#{key} #{mine[key].inspect} here, #{other[key].inspect} #{there}" }.join(", ")
        end
      end
    end
  end
end
