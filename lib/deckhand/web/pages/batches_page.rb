# frozen_string_literal: true

require_relative "../helpers/progress"

module Deckhand
  class Web
    module Pages
      # Batches newest first with their progress; one batch's callbacks,
      # parent, children and failures; and the way from a failure to its entry
      # in the retry or dead set.
      #
      # The batch code is loaded on the first visit, and only its read side
      # (Batch::Listing): viewing batches enables nothing in this process.
      class BatchesPage < Action # :nodoc:
        include Helpers::Progress

        # Deckhand's bids are 14 URL-safe characters (Sidekiq Pro's shape);
        # anything else is no batch and never reaches Redis as a key.
        BID = /\A[A-Za-z0-9_-]{1,64}\z/
        CHILDREN_SHOWN = 100
        MAX_CURSOR = 2**64 - 1 # Redis's scan cursors are unsigned 64-bit
        SETS = %w[retries dead].freeze

        def index
          @section = "batches"
          paginate(listing.size)
          @batches = listing.page(offset: (@page - 1) * @per_page, limit: @per_page)
          render :batches, title: t("nav.batches")
        end

        # The failures come a stretch at a time (HSCAN), so the page costs the
        # same whether 10 or 500,000 of the batch's jobs fail.
        def show
          @section = "batches"
          @status = batch_status or return not_found("that batch has expired, or never existed")
          @callbacks = @status.callbacks
          @children = listing.children(@status.bid, limit: CHILDREN_SHOWN).sort_by { |child| -child.created_at.to_f }
          @per_page = per_page
          @cursor = int_param("cursor", 0, 0..MAX_CURSOR)
          @next_cursor, failures = listing.failure_page(@status.bid, cursor: @cursor, count: @per_page)
          @failures = failures.sort_by { |failure| -failure["failed_at"].to_f }
          render :batch, title: t("batches.title", bid: @status.description.to_s.empty? ? @status.bid : truncate(@status.description, 60))
        end

        # A job of the batch (a failure, a callback) in the retry or dead set:
        # off to its entry's page. Each set is searched within the dashboard's
        # usual bound; past it, the set's filter page carries on from there.
        def find
          bid = params["bid"]
          jid = params["jid"]
          return not_found("batch") unless BID.match?(bid) && jid.length <= 100
          first = choice_param("in", SETS, "retries")
          [first, *(SETS - [first])].each do |name|
            entry, resume_at = search(name, jid)
            return redirect_to(path(name, entry.key)) if entry
            return redirect_to(path(name, q: jid, from: resume_at)) if resume_at
          end
          redirect_to(path("batches", bid), notice: "not_in_sets")
        end

        private

        def listing
          @listing ||= begin
            require_relative "../../batch/listing"
            Batch::Listing.new(@web.config)
          end
        end

        def batch_status
          bid = params["bid"]
          BID.match?(bid) ? listing.status(bid, summary: true) : nil
        end

        # [entry or nil, rank to resume from or nil], at most SCAN_BUDGET
        # entries examined. The text search may also find the jid inside other
        # jobs' arguments: only an entry with this very jid counts.
        def search(name, jid)
          set = api.job_set(name.to_sym)
          from = 0
          examined = 0
          while from && examined < API::JobSet::SCAN_BUDGET
            found, resume_at = set.filter(jid, from: from, limit: 10, budget: API::JobSet::SCAN_BUDGET - examined)
            entry = found.find { |candidate| candidate.jid == jid }
            return [entry, nil] if entry
            examined += (resume_at || set.size) - from
            from = resume_at
          end
          [nil, from]
        end
      end
    end
  end
end
