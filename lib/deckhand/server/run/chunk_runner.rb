# frozen_string_literal: true

require_relative "member_chains"

module Deckhand
  module Server
    module Run
      # Runs the jobs of a class that declares `chunk:` (Deckhand::Chunk,
      # docs/chunks.md) together: the processor that took the first gathers
      # more of the same class from its capsule's fetched jobs (Fetch::Gather:
      # up to `size`, for up to `wait` seconds, stopping at a job of another
      # class, which goes back for the other threads), calls perform_chunk
      # once, then settles each member alone through Run::Outcomes: a member
      # named with Chunk#fail, or every member when perform_chunk raised, is
      # a failure that retries or dies by its own rules; the others succeed.
      # Members are fetched jobs like any other until they settle, so the
      # in-flight record, hand-back at a stop and recovery cover them; the
      # processor holds them all (`held`), so a thread that dies leaves none
      # unsettled. Server middleware runs for each member (Run::MemberChains);
      # each chunk that ran is told as the :chunk notice (its jobs, class, queue).
      #
      # A member recovered from a process that died (a suspect) runs alone,
      # after the others: a chunk that kills its process is run again one job
      # at a time, so the poison pill, and only it, is found.
      #
      #   chunks = ChunkRunner.new(config: config, fetcher: fetcher, stats: stats, gate: gate, outcomes: outcomes,
      #     classes: classes, suspects: suspects, cancels: cancels, middleware: middleware, shield: nil)
      #   chunks.chunked?(job)            # => its Chunk options (a Hash), or nil; raises as the class lookup does
      #   chunks.run(unit, job, held)     # held: the processor's units (nil: no gathering)
      class ChunkRunner
        FINAL = %i[success dead dropped cancelled].freeze
        NONE = [].freeze

        def initialize(config:, fetcher:, stats:, gate:, outcomes:, classes:, suspects:, cancels:, middleware:, shield:)
          @executor = config.executor
          @gather = fetcher.gather
          @stats = stats
          @gate = gate
          @outcomes = outcomes
          @classes = classes
          @suspects = suspects
          @cancels = cancels
          @middleware = middleware
          @shield = shield
          @reloading = config.reloading
          @events = config.events
          @logger = config.logger
          @known = {}.freeze
        end

        # The chunk options of the job's class, or nil (a class that cannot be
        # found runs the single job's way, which records why). Active Job's
        # wrapper answers for the class it wraps.
        # Asked of every job: the answer is kept per class name, unless code
        # reloads (then a class may change its options).
        def chunked?(job)
          name = job["wrapped"] || job["class"]
          known = @known[name] unless @reloading
          return known || nil unless known.nil?
          klass = @classes.job_class(job["class"]) # raises as the job's own lookup would (JobRunner#run keeps the error)
          options = Chunk.for_job(klass, job)
          @known = @known.merge(name => options || false).freeze if klass && !@reloading # replaced whole: read without a lock
          options
        end

        def run(unit, job, held)
          options = chunked?(job)
          if held && options["size"] > 1
            # Another thread's chunk of the class gathers: the job joins it,
            # and its unit leaves this processor's hands for that thread's.
            open = @gather.join_or_open(unit, job, options["size"] - 1)
            unless open
              held.delete(unit)
              return
            end
          end
          room = held ? options["size"] - 1 : 0
          @gather.reserve(room)
          members = held ? gather(unit, job, held, options, open) : [[unit, job]]
          @gather.reserve(members.size - 1 - room)
          room = members.size - 1
          suspects, fresh = @suspects.none? ? [NONE, members] : members.partition { |u, j| @suspects.count(u.queue, j["jid"]) }
          run_chunk(fresh) unless fresh.empty?
          suspects.each { |member| run_suspect(*member) }
        ensure
          @gather.reserve(-room) if room
        end

        private

        # The chunk's members (`open`: the chunk opened for it, or nil for a
        # chunk of one): its first, the jobs it takes from the buffer,
        # and those other threads joined to it (Fetch::Gather#join), each
        # put in `held` as it comes, and the last joined even when this
        # raises.
        def gather(unit, job, held, options, open)
          members = [[unit, job]]
          deadline = Monotonic.now + options["wait"]
          open ||= @gather.open(job, options["size"] - 1)
          begin
            while (more = @gather.next(deadline - Monotonic.now, open)) # nil once full, or none came within the wait
              next adopt(@gather.joined(open), members, held) if more.equal?(Fetch::Gather::JOINED)
              break unless take(more, job, held, open, members)
            end
          ensure
            adopt(@gather.close(job, open), members, held)
          end
          members
        end

        # A job from the buffer: a member (true), nothing (corrupt or
        # expired: settled already), or the end of the gathering (false: of
        # another class, or the chunk filled with joined jobs meanwhile), the
        # job back in the buffer for the other threads.
        def take(more, job, held, open, members)
          held << more
          other = @outcomes.decode(more) or return held.delete(more) && true # corrupt: buried already
          same = other["class"] == job["class"] && other["wrapped"] == job["wrapped"]
          return held.delete(more) && true if same && @gate.expired(more, other)
          return members << [more, other] if same && @gather.claim(open)
          held.delete(more)
          @gather.give_back(more)
          false
        end

        def adopt(joined, members, held)
          joined.each { |unit, _| held << unit }
          members.concat(joined)
        end

        # A suspect cancelled before its process died ends cancelled; else it
        # runs as a chunk of one, recorded as running while it does.
        def run_suspect(unit, job)
          jid = job["jid"]
          return @cancels.settle(unit, job) if @cancels.marked?(jid)
          outcome = nil
          begin
            @suspects.enter(unit.queue, jid, @suspects.count(unit.queue, jid))
            outcome = run_chunk([[unit, job]]).first
          ensure
            # A suspect that will run again keeps its count: it may crash a process yet.
            @suspects.leave(unit.queue, jid, forget: FINAL.include?(outcome))
          end
        end

        # Each member's outcome, in order.
        def run_chunk(members)
          unit, job = members.first
          tid = Logging::Formatters.tid
          Thread.current[:deckhand_job] = job
          @stats.started(tid, unit.queue_name, unit.payload, chunk: (members.map { |_, member| member["jid"] } if members.size > 1))
          outcomes = []
          started = Monotonic.now
          errors = @cancels.interruptible(@shield) { execute(members) }
          errors = Array.new(members.size, errors) unless errors.is_a?(Array) # an interrupt that landed as it ended
          elapsed = Monotonic.ms_since(started) / members.size
          outcomes = settle_all(members, errors, elapsed)
          @events.fire(:chunk, @logger, members.size, job["wrapped"] || job["class"], unit.queue_name)
          outcomes
        ensure
          @stats.finished_chunk(tid, [outcomes.size, 1].max, outcomes.empty? ? 1 : outcomes.size - outcomes.count(:success)) if outcomes
          Thread.current[:deckhand_job] = nil
        end

        # The members that succeeded settle together, the others one by one.
        def settle_all(members, errors, elapsed)
          if errors.none? # every member succeeded (most chunks)
            @outcomes.successes(members, elapsed)
            return Array.new(members.size, :success)
          end
          @outcomes.successes(members.reject.with_index { |_, i| errors[i] }, elapsed)
          members.each_with_index.map { |(unit, job), i| errors[i] ? settle(unit, job, errors[i], elapsed) : :success }
        end

        def settle(unit, job, error, elapsed)
          return @cancels.settle(unit, job) if error.equal?(CANCELLED)
          error.is_a?(NotAJobClass) ? @outcomes.refused(unit, error) : @outcomes.failure(unit, job, error, elapsed)
        end

        # A member's "error" when its cancel came before perform_chunk returned.
        CANCELLED = Object.new.freeze
        private_constant :CANCELLED

        # Each member's error, or nil when it succeeded.
        def execute(members)
          @executor ? @executor.wrap { perform(members) } : perform(members)
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- the chunk's failure is data, whatever its class
          Array.new(members.size, e)
        end

        def perform(members)
          klass = @classes.job_class(members.first[1]["class"])
          instance = klass.new
          Chunk.check!(instance)
          chains = MemberChains.new(@middleware, instance, members.first[0].queue_name)
          watching(members) do |watch|
            chains.around(members) do |entered|
              refused = {} # a member whose args cannot be read (decrypted) fails alone
              pairs = entered.filter_map { |_, job| start(job) { |e| refused[job["jid"]] = e } }
              chunk = Chunk.new(pairs, cancelled: watch)
              error = chunk_error { instance.perform_chunk(chunk) } unless pairs.empty?
              ->(job) { refused[job["jid"]] || error || chunk.failure(job["jid"]) }
            end
          end
        end

        # Enters each member where its cancel reaches it while the block runs
        # (the block gets the question Chunk#cancelled? asks). Returns the
        # members' errors the block returns (after their middleware), with
        # CANCELLED for each member whose cancel came first.
        def watching(members)
          entries = @cancels.enter_members(members.map { |_, job| job["jid"] })
          watch = nil # looked up by jid only when perform_chunk asks (few do)
          errors = yield ->(jid) { (entry = (watch ||= @cancels.by_jid(entries))[jid]) ? @cancels.told?(entry) : false }
          left = true
          cancelled = @cancels.members_cancelled(entries) or return errors
          errors.each_with_index.map { |error, i| cancelled[i] ? CANCELLED : error }
        ensure
          @cancels.members_cancelled(entries) if entries && !left
        end

        # The member's [args, job] as it starts, or nil (its error yielded).
        def start(job)
          @gate.starting(job)
          [@gate.args(job), job]
        rescue Deckhand::Shutdown
          raise
        rescue => e
          yield e
          nil
        end

        # What perform_chunk raised, or nil.
        def chunk_error
          yield
          nil
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- every member fails with it
          e
        end
      end
    end
  end
end
