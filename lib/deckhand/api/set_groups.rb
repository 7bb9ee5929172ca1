# frozen_string_literal: true

require "json"

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
    class SetGroups
      Group = Struct.new(:name, :count, :filter)
      private_constant :Group

      attr_reader :errors, :classes, :examined

      # errors: {name => count}; classes: {"c:Name" or "w:Name" => count}.
      def initialize(errors, classes, examined:, complete:)
        @errors = errors.map { |name, count| Group.new(name, count, "\"error_class\":#{JSON.generate(name)}") }
          .sort_by { |g| [-g.count, g.name] }
        @classes = classes.map { |tagged, count| class_group(tagged, count) }.sort_by { |g| [-g.count, g.name] }
        @examined = examined
        @complete = complete
      end

      def complete? = @complete

      private

      def class_group(tagged, count)
        field = tagged.start_with?("w:") ? "wrapped" : "class"
        name = tagged[2..]
        Group.new(name, count, "\"#{field}\":#{JSON.generate(name)}")
      end
    end
  end
end
