# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      module Idle
        # One processor's own blocking pop: the processor thread, idle, blocks
        # on a queue with a BLMOVE into the process's landing list, on a
        # connection of its own, and runs the job the reply carries, as a
        # Sidekiq processor runs what its BRPOP brings. The job is in the
        # landing list from the move until its outcome is written, as a job an
        # idle waiter thread landed (Fetch::Idle::IdleWaiter); a wait whose
        # reply may be lost is told to the process's
        # Fetch::Idle::LandingWatch, whose next look hands over what no thread
        # got. Fetch::Idle::ProcessorWaits says which processors wait, and on
        # which queue.
        #
        #   wait = ProcessorWait.new(store, identity: identity, watch: watch)
        #   wait.id                          # its connection's CLIENT ID (opens it)
        #   wait.call("default")             # => [payload or nil, the recovery count version]
        #   wait.close
        class ProcessorWait
          def initialize(store, identity:, watch:)
            @store = store
            @identity = identity
            @watch = watch
            @conn = nil
          end

          def id = connection.id

          # One BLMOVE of up to IdleWaiter::TIMEOUT seconds from `queue` into
          # its landing list, ended early by CLIENT UNBLOCK of #id. Raises a
          # Deckhand::RedisError when the wait failed (the connection is then
          # opened anew for the next).
          def call(queue)
            landing = @store.layout.landing(@identity, queue)
            recoveries = @store.layout.recoveries(queue)
            @watch.waiting(landing) do
              told = false
              begin
                moved, version = connection.wait_move(@store.layout.queue(queue), landing, IdleWaiter::TIMEOUT,
                  hash: recoveries, field: Store::Inflight::Recoveries::VERSION)
                @watch.held(landing, moved) if moved
                told = true
                # The client opened the connection again and sent the BLMOVE
                # once more: the first one's move may be in the list.
                @watch.lost(landing) if connection.reconnected?
                [moved, version]
              ensure
                # Any end but a reply read (an error, the thread's death): a
                # move Redis made may be in the list with no thread told.
                unless told
                  @watch.lost(landing)
                  close
                end
              end
            end
          end

          def close
            @conn&.close
            @conn = nil
          end

          private

          def connection = @conn ||= @store.dedicated
        end
      end
    end
  end
end
