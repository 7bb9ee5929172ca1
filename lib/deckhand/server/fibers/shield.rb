# frozen_string_literal: true

module Deckhand
  module Server
    module Fibers
      # Which worker fibers are inside a job now: the only place the shutdown
      # interrupt may land, as Thread.handle_interrupt lets it land in a thread
      # capsule (JobRunner). Masks belong to threads, and a thousand fibers
      # share one, so a fiber capsule keeps its own record. Used on the
      # reactor's thread only.
      #
      #   shield = Shield.new
      #   shield.interruptible { job.perform }   # in a worker fiber
      #   shield.inside?(fiber)                  # from the reactor: may it be interrupted now?
      class Shield
        def initialize
          @inside = {}.compare_by_identity
        end

        def interruptible
          fiber = Fiber.current
          @inside[fiber] = true
          yield
        ensure
          @inside.delete(fiber)
        end

        def inside?(fiber) = @inside.key?(fiber)
      end
    end
  end
end
