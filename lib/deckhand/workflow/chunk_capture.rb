# frozen_string_literal: true

module Deckhand
  class Workflow
    # Prepended to the one instance of a chunked class (docs/chunks.md) that
    # runs a chunk holding workflow steps or jobs that keep their value: it
    # keeps the Chunk perform_chunk was given, where each member's
    # middleware (StepMiddleware, in a fiber of its own) reads that member's
    # value (Chunk#result) and whether it was cancelled. The chunk's
    # perform_chunk itself is untouched.
    #
    #   ChunkCapture.on(instance)            # before perform_chunk runs
    #   instance.deckhand_step_chunk         # => the Chunk, once it ran
    module ChunkCapture
      def self.on(instance)
        instance.singleton_class.prepend(self) unless instance.is_a?(self)
        instance
      end

      def perform_chunk(chunk)
        @deckhand_step_chunk = chunk
        super
      end

      def deckhand_step_chunk = @deckhand_step_chunk
    end
  end
end
