# frozen_string_literal: true

require "json"
require_relative "../store/scripts/sets/list_scan"
require_relative "class_pauses"

module Deckhand
  class API
    # Jobs that carry an argument ("98431": a customer's id, an order number),
    # or whose jid is the text, wherever they wait: the retry, scheduled and
    # dead sets, the queues and the jobs of paused classes held aside (place
    # :held).
    # Each place is searched inside Redis a bounded step at a time, and only
    # so far (SET_BUDGET entries of each set, QUEUE_BUDGET jobs of each queue
    # from the one that runs next, the first QUEUES queues by name), so a
    # search of a large backlog stays cheap and says what it left unread. A
    # queue's priority levels (docs/priority.md) are read as its list is, each
    # level's list up to QUEUE_BUDGET, in the order a fetch takes them.
    #
    #   search = api.find_by_argument("98431")
    #   search.hits.map { |hit| [hit.place, hit.record.jid] }  # => [[:retries, "b4a5..."], ["mailers", "9c1e..."]]
    #   search.unread    # => [] or the places searched only in part, e.g. [:dead, "default"]
    #
    # An argument matches when it equals the text: a String as is, a number
    # as it prints (98431 and "98431" both match "98431"), at any depth of
    # Arrays and Hashes, inside Active Job's wrapper too. Encrypted arguments
    # are never read.
    class JobSearch
      # Entries of each set a search reads at most.
      SET_BUDGET = 10_000
      # Jobs of each queue a search reads at most.
      QUEUE_BUDGET = 10_000
      # Queues a search reads at most, the first by name.
      QUEUES = 100
      # Hits a search returns at most.
      LIMIT = 50

      # A job found: place is :retries, :scheduled, :dead or :held, or the
      # name of the queue's list; record its SetEntry, QueuedJob or HeldJob;
      # queue, for a queued or held job, the queue the list belongs to (a
      # partition's queue).
      Hit = Struct.new(:place, :record, :queue)

      attr_reader :text, :hits, :unread

      def initialize(config, text, limit: LIMIT, set_budget: SET_BUDGET, queue_budget: QUEUE_BUDGET)
        @text = text.to_s
        raise ArgumentError, "an empty search matches nothing: give the argument's value, e.g. \"98431\"" if @text.empty?
        @config = config
        @store = config.store
        @needle = JSON.generate(@text)[1..-2] # how the text reads inside a JSON string
        @limit = limit
        @budgets = {set: set_budget, queue: queue_budget}
        @hits = []
        @unread = []
        JobSet::SETS.each_key { |name| search_set(name) }
        search_queues
        search_held
      end

      # True when every place was searched to its end.
      def complete? = @unread.empty?

      # Whether the search stopped at its limit of hits (more may match).
      def full? = @hits.size >= @limit

      private

      def search_set(name)
        set = JobSet.new(name, @config)
        from = 0
        budget = @budgets[:set]
        while from && from < budget && !full?
          found, from = set.filter(@needle, from: from, limit: @limit - @hits.size, budget: budget - from)
          found.each { |entry| keep(name, entry) }
        end
        @unread << name if from
      end

      def search_queues
        names = Store::Jobs::Queues.names(@store)
        @unread.concat(names.drop(QUEUES))
        @store.layout.place(names.first(QUEUES)) # in cluster mode, each list's primary in one look
        budget = @budgets[:queue]
        read = names.first(QUEUES)
        order = Store::Jobs::PriorityLevels.run_order(@store, read).each_with_index.sort_by { |(name, _), i| [read.index(name), i] }.map(&:first)
        order.each do |name, level|
          from = 0
          while from && from < budget && !full?
            found, from = Store::Scripts::ListScan.new(@store).call(name, @needle, from: from, limit: @limit - @hits.size, budget: budget - from, level: level)
            found.each { |position, raw| keep(name, QueuedJob.new(raw, position, name, level: level), Store::Layout::PartitionNames.base(name)) }
          end
          @unread << name if from && !@unread.include?(name)
        end
      end

      # The jobs of paused classes held aside (ClassPauses), each held set
      # read up to the queue's budget; :held is unread when one was not.
      def search_held
        lists = ClassPauses.new(@config).lists
        partial = false
        Store::Jobs::HeldSearch.sets(@store, lists).each do |list, name, key|
          break partial = true if full?
          found, whole = Store::Jobs::HeldSearch.scan(@store, key, @needle, budget: @budgets[:queue])
          partial ||= !whole
          found.each { |raw| keep(:held, HeldJob.new(raw, list, name), Store::Layout::PartitionNames.base(list)) }
        end
        @unread << :held if partial
      end

      # The text was found in the JSON; it counts only as an argument, or as
      # the whole jid (a job waiting in a queue has no page of its own to
      # find it by).
      def keep(place, record, queue = nil)
        return if full? || record.corrupt?
        @hits << Hit.new(place, record, queue) if record.jid == @text || holds?(record.display_args)
      end

      def holds?(value)
        case value
        when Array then value.any? { |item| holds?(item) }
        when Hash then value.any? { |_, item| holds?(item) }
        when String then value == @text
        when Integer, Float then value.to_s == @text
        else false
        end
      end
    end
  end
end
