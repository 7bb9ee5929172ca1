# frozen_string_literal: true

require "json"
require_relative "set_filter"

module Deckhand
  class API
    # A retry, scheduled or dead set counted by error class and by job class,
    # inside Redis (Store::Scripts::ZsetGroups), never loading the set into
    # Ruby. Each group carries the filter text that finds its entries, so it
    # can be listed and acted on as a whole.
    #
    #   groups = api.retries.groups               # the first 10,000 entries
    #   groups = api.retries.groups(budget: nil)  # the whole set
    #   groups.errors.first   # => #<Group name="Net::ReadTimeout", count=25, filter="\"error_class\":\"Net::ReadTimeout\"">
    #   groups.complete?      # => true when every entry was counted
    #   groups.cells.first    # => #<Cell error="Net::ReadTimeout", job_class="MailJob", count=25, first_at=..., last_at=...>
    class SetGroups
      Group = Struct.new(:name, :count, :filter)
      private_constant :Group

      # One error class met in one job class: how many entries, the first and
      # last failed_at among them (Times, nil when none had one), and the
      # SetFilter that finds exactly them.
      Cell = Struct.new(:error, :job_class, :count, :first_at, :last_at, :filter)

      attr_reader :errors, :classes, :examined

      # errors: {name => count}; classes: {"c:Name" or "w:Name" => count};
      # cells: {[error, "c:Name"] => [count, first failed_at, last failed_at]}.
      def initialize(errors, classes, examined:, complete:, cells: {})
        @cells = cells
        @errors = errors.map { |name, count| Group.new(name, count, "\"error_class\":#{JSON.generate(name)}") }
          .sort_by { |g| [-g.count, g.name] }
        @classes = classes.map { |tagged, count| class_group(tagged, count) }.sort_by { |g| [-g.count, g.name] }
        @examined = examined
        @complete = complete
      end

      # Whether every entry of the set was counted.
      def complete? = @complete

      # The error × class table: {error name => [Cell, ...]}, errors in the
      # order of #errors, each error's classes most entries first.
      def cells
        by_error = @cells.map { |(err, tagged), (count, first, last)| cell(err, tagged, count, first, last) }.group_by(&:error)
        @errors.to_h { |group| [group.name, (by_error[group.name] || []).sort_by { |c| [-c.count, c.job_class] }] }
      end

      private

      def cell(err, tagged, count, first, last)
        name = tagged[2..]
        filter = tagged.start_with?("w:") ? SetFilter.new(error: err, wrapped: name) : SetFilter.new(error: err, job_class: name)
        Cell.new(err, name, count, first && Time.at(first), last && Time.at(last), filter)
      end

      def class_group(tagged, count)
        field = tagged.start_with?("w:") ? "wrapped" : "class"
        name = tagged[2..]
        Group.new(name, count, "\"#{field}\":#{JSON.generate(name)}")
      end
    end
  end
end
