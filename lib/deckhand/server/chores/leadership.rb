# frozen_string_literal: true

module Deckhand
  module Server
    module Chores
      # This process's side of the periodic leader's lease in Redis
      # (Store::Scripts::PeriodicLease): takes it when free, renews it every
      # third of its life, gives it up on a graceful stop, and counts it lost
      # the moment Redis says another holds it, or once it could not be renewed
      # for its whole life. Tells Lifecycle (Deckhand.leader?, :leader hooks).
      #
      #   leadership = Leadership.new(store, identity, ttl: 6, logger: logger)
      #   leadership.refresh     # take or renew as due; => true while leading
      #   leadership.token       # "<fence>:<identity>", fences the enqueue script
      #   leadership.resign      # on stop: the next process takes over at once
      class Leadership
        attr_reader :token, :ttl

        def initialize(store, identity, ttl:, logger:)
          @script = Store::Scripts::PeriodicLease.new(store)
          @identity = identity
          @ttl = ttl
          @logger = logger
          @token = nil
          @renewed = nil
        end

        def leader? = !@token.nil?

        # Takes the lease if free, renews it when a third of its life has
        # passed; returns whether this process leads.
        def refresh
          if @token
            renew if Monotonic.now - @renewed >= @ttl / 3.0
          else
            held, token = @script.acquire(@identity, ttl_ms: @ttl * 1000)
            won(token) if held
          end
          leader?
        end

        # Seconds until the lease is due for renewal (leader) or worth trying
        # again (follower: a third of its life, jittered).
        def wait
          return (@ttl / 3.0 - (Monotonic.now - @renewed)).clamp(0.0, @ttl) if @token
          @ttl / 3.0 * (0.75 + 0.5 * rand)
        end

        # Redis failed: a lease that could not be renewed for its whole life
        # may be another's by now.
        def unreachable
          lost("its lease could not be renewed for #{@ttl}s") if @token && Monotonic.now - @renewed >= @ttl
        end

        # The enqueue script found another holder.
        def lost!(why = "another process holds the lease") = lost(why)

        def resign
          return unless @token
          token = @token
          lost("this process is stopping")
          @script.release(token)
        rescue Deckhand::RedisError => e
          @logger.warn("periodic: could not give up the leader's lease (#{e.message}); it expires in #{@ttl}s")
        end

        private

        def renew
          held, _holder = @script.renew(@token, ttl_ms: @ttl * 1000)
          held ? @renewed = Monotonic.now : lost("another process holds the lease")
        end

        def won(token)
          @token = token
          @renewed = Monotonic.now
          @logger.info("periodic: this process is the leader (lease #{token})")
          Lifecycle.leader!(true, logger: @logger)
        end

        def lost(why)
          @logger.warn("periodic: no longer the leader: #{why}")
          @token = nil
          Lifecycle.leader!(false, logger: @logger)
        end
      end
    end
  end
end
