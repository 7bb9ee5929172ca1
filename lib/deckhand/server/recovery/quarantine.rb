# frozen_string_literal: true

require "json"

module Deckhand
  module Server
    module Recovery
      # Writes poison pills to the dead set. The recover script takes them out of
      # circulation into their queue's poison hash, atomically with the rest of a
      # dead process's recovery; this writes each one to the dead set and removes
      # it from the hash in one transaction (so a reaper dying in between loses
      # nothing: the next pass finishes the job), then calls the death handlers.
      # The final-failure handlers hear of it before it is written, so a
      # reaper dying in between tells them again on the next pass.
      #
      #   Quarantine.new(config: config, store: store).bury_all(%w[default])   # => number buried
      class Quarantine
        def initialize(config:, store:)
          @config = config
          @store = store
          @logger = config.logger
        end

        def bury_all(queues)
          pending = Store::Inflight::Poison.pending(@store, queues)
          pending.each { |queue, entries| entries.each { |key, raw| bury(queue, key, raw) } }
          pending.sum { |_, entries| entries.size }
        end

        private

        def bury(queue, key, raw)
          identity, _jid = key.split("|", 2)
          job = parse(raw)
          error = PoisonPill.new(message(job, identity))
          entry = job ? annotate(job, error) : corrupt(raw, error)
          @config.final_handlers.each { |handler| call_handler(handler, entry, error, :dead) } if job
          now = @store.clock.now.round(3)
          Store::Inflight::Poison.bury(@store, queue, key, JSON.generate(entry), now: now, timeout: @config.dead_timeout,
            max_jobs: @config.dead_max_jobs)
          release_lock(job)
          @logger.error("#{entry["class"]} jid=#{entry["jid"]} quarantined: #{error.message}")
          @config.events.fire(:poison_pill, @logger, 1)
          @config.death_handlers.each { |handler| call_handler(handler, entry, error) }
        end

        # Its death releases its unique lock; if this process dies first, the
        # lock's TTL does.
        def release_lock(job)
          key, jid = job && Unique.held_by(job, @store.layout)
          Store::Features::UniqueLocks.release(@store, key, jid) if key
        end

        # The recover script decoded it to find its jid, but Lua does not check
        # UTF-8: Ruby may still refuse it.
        def parse(raw)
          job = Payload.decode(raw)
          job.is_a?(Hash) ? job : nil
        rescue Payload::Decoder::Invalid
          nil
        end

        def message(job, identity)
          name = job ? job["class"] : "A job"
          "#{name} was running when its process died #{@config.max_recoveries} times (the last: #{identity}); " \
            "Deckhand stopped recovering it so it cannot take down more processes. Find why it kills its " \
            "process (memory, a crash in a native extension, exit!), fix that, then retry it from the dead set"
        end

        def annotate(job, error)
          now = Payload.now(@config.timestamps, clock: @store.clock)
          job["error_class"] = error.class.name
          job["error_message"] = error.message
          job.delete("error_backtrace") # from an earlier failure, not this one
          job.key?("failed_at") ? job["retried_at"] = now : job["failed_at"] = now
          job
        end

        def corrupt(raw, error)
          now = Payload.now(@config.timestamps, clock: @store.clock)
          {"class" => "Deckhand::CorruptPayload", "args" => [], "jid" => Payload.jid, "retry" => false,
           "created_at" => now, "failed_at" => now, "error_class" => error.class.name,
           "error_message" => error.message, "raw" => [raw].pack("m0"), "raw_encoding" => "base64"}
        end

        def call_handler(handler, entry, error, *outcome)
          handler.call(entry, error, *outcome)
        rescue Deckhand::AppError => e # whatever its class: the reaper goes on
          @logger.error("death handler raised #{e.class}: #{e.message}")
        end
      end
    end
  end
end
