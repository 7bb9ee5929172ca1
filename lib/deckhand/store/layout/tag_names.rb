# frozen_string_literal: true

module Deckhand
  class Store
    module Layout
      # Cluster mode: the keys of a queue under a given hash tag. Most code
      # names a queue's keys from its placement (Layout::Cluster's methods
      # take a queue and call these with its tag); a queue move
      # (Store::Tags::QueueMove) and the sweep of retired tags name them from a
      # tag, since they name a queue's keys under its old tag and its new
      # one at once. A move's batch is held beside its source until it is
      # written under the new tag once (the marker of its id).
      #
      #   TagNames.set("{queue~2:mail}", "retry")           # => "{queue~2:mail}:retry"
      #   TagNames.inflight("{queue:mail}", "host:1:abc")   # => "{queue:mail}:inflight:host:1:abc"
      #   TagNames.held_batch("{queue:mail}:retry")         # => "{queue:mail}:retry:moving:batch"
      #   TagNames.moved_marker("{queue~2:mail}", "b1")     # => "{queue~2:mail}:moved:b1"
      #   TagNames.collapse("{queue:mail}", "debounce", hex) # => "{queue:mail}:debounce:<hex>"
      module TagNames # :nodoc:
        # A queue's own sets in cluster mode: scheduled, retry and dead.
        SETS = %w[schedule retry dead].freeze

        module_function

        def set(tag, kind) = "#{tag}:#{kind}"

        def fair_jobs(tag) = "#{tag}:fair"

        def fair_tenants(tag) = "#{tag}:tenants"

        def priority(tag, level) = "#{tag}~r#{level}"

        def priorities(tag) = "#{tag}:priorities"

        def inflight(tag, identity) = "#{tag}:inflight:#{identity}"

        def landing(tag, identity) = "#{tag}:landing:#{identity}"

        # The held jobs of a paused job class (`name`) under `tag`.
        def held(tag, name) = "#{tag}:held:#{name}"

        # A queue move's batch taken from `source` (a list, a set or the
        # tenants' jobs), and its id, held in the source's slot.
        def held_batch(source) = "#{source}:moving:batch"

        def held_batch_id(source) = "#{source}:moving:id"

        # Written with a batch under the new tag: a second put of the same
        # batch finds it and writes nothing.
        def moved_marker(destination, id) = "#{destination}:moved:#{id}"

        # The record of a debounced or deduplicated key (Deckhand::Collapsing)
        # under `tag`: mode "debounce" or "dedupe", digest 64 hex digits.
        def collapse(tag, mode, digest) = "#{tag}:#{mode}:#{digest}"

        # A SCAN pattern matching the records of both modes under `tag` (the
        # tag's glob characters escaped); it matches no other key of the tag
        # but a few a caller tells apart (Tags::CollapseRecordMove).
        def collapse_pattern(tag) = "#{tag.gsub(/[*?\[\]\\]/) { |c| "\\#{c}" }}:de[bd]*"
      end
    end
  end
end
