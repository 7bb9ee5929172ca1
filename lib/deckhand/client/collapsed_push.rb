# frozen_string_literal: true

require_relative "../collapsing"
require_relative "../store/features/collapses"
require_relative "scripted_push"

module Deckhand
  class Client
    # Pushes debounced and deduplicated jobs (Deckhand::Collapsing), each
    # with its record, in one round trip (Store::Features::Collapses.push).
    # A job a dedupe: {on_conflict: :keep or :extend} kept out is not
    # pushed: its place in the answer is nil, and the waiting job's jid is
    # logged.
    #
    #   CollapsedPush.new(config).call([job], [nil], [claim])   # => ["b4a5..."] or [nil]
    class CollapsedPush < ScriptedPush # :nodoc:
      # How Client.write behind a pusher (push_after_commit) tells a
      # collapsing job's payload from the others.
      MARKS = ["\"debounce\":{", "\"dedupe\":{"].freeze

      # The claim a resolved job makes with its push, and its scheduled time:
      # [nil, at] for a job that asks for neither debounce: nor dedupe:. A
      # pusher (Deckhand::Testing, push_after_commit) holds a debounced job
      # as scheduled its wait from now; Client.write (#deferred) writes it
      # through the script when the pusher lets it go to Redis.
      def self.claim(job, at, config)
        return [nil, at] unless Collapsing.asked?(job)
        mode = job["debounce"] ? "debounce" : "dedupe"
        raise InvalidJob, "#{job["class"]} has #{mode}: inside a batch's jobs block; push it outside the batch" if Thread.current[COLLECTOR]
        raise InvalidJob, "#{job["class"]} has both unique_for and #{mode}:; choose one (set(unique_for: false) for this push)" if Unique.ttl_seconds(job)
        claim = Collapsing.claim_for(job, at, config.layout)
        return [claim, at] unless Client.pusher
        [nil, (mode == "debounce") ? Time.now.to_f + job["debounce"]["wait"] : at]
      end

      # jobs: resolved job Hashes of one queue; ats: their scheduled times
      # (nil: now); claims: their Collapsing::Claim. Returns jid or nil per job.
      def call(jobs, ats, claims)
        payloads = payloads(jobs) { |i| !ats[i] && claims[i].mode != "debounce" }
        entries = jobs.each_with_index.map { |job, i| [claims[i], job["jid"], ats[i], payloads[i]] }
        written(jobs, run_script(jobs) { Store::Features::Collapses.push(@config.store, jobs.first["queue"], entries) })
      end

      # A slice of push_bulk (Client#push_slice): `jobs` after middleware
      # (nil where one stopped it), `kept` the indexes of the others.
      # Returns each job's jid, nil where it was stopped or kept out.
      def slice(jobs, kept, ats)
        claimed = kept.map { |i| [i, *self.class.claim(jobs[i], ats && ats[i], @config)] }
        jids = Array.new(jobs.size)
        scripted, rest = claimed.partition { |_, claim, _| claim }
        unless scripted.empty?
          pushed = call(scripted.map { |i, *| jobs[i] }, scripted.map(&:last), scripted.map { |_, claim, _| claim })
          scripted.each_with_index { |(i, *), k| jids[i] = pushed[k] }
        end
        unless rest.empty? # under a pusher, or a job a middleware took its option from
          pushed = Delivery.watched(@config, rest.map { |i, *| jobs[i] }, rest.map(&:last))
          rest.each_with_index { |(i, *), k| jids[i] = pushed[k] }
        end
        jids
      end

      # Logs a job a dedupe kept out (`holder`: the jid waiting in its stead).
      def conflict(job, holder)
        @config.logger.info("#{job["wrapped"] || job["class"]} not pushed: job #{holder} waits with the same dedupe key " \
          "(#{job["dedupe"]["key"] || "its args"}, on_conflict: #{job["dedupe"]["on_conflict"]})")
      end

      private

      # A collapsing job's payload (ScriptedPush#deferred).
      def marked?(json) = MARKS.any? { |mark| json.include?(mark) }

      # [pushed, other jid]: the script's reply for a job.
      def pushed?(reply) = reply[0]

      # A pusher held the job as it would be written: a debounced one as
      # scheduled by the host's clock, which the script replaces with Redis'.
      # A push waiting to learn of its conflicts (LockedPush.watch, when
      # the pusher writes at once) finds a kept-out job there.
      def write_one(json, at)
        job = Payload.decode(json)
        at = nil if job["debounce"]
        claim = Collapsing.claim_for(job, at, @config.layout) or return false
        pushed, holder = Store::Features::Collapses.push(@config.store, job["queue"], [[claim, job["jid"], at, json]]).first
        return true if pushed
        watching = Thread.current[LockedPush::CONFLICTS]
        watching ? watching[job["jid"]] = holder : conflict(job, holder)
        true
      end

      def written(jobs, replies)
        jobs.each_with_index.map do |job, i|
          pushed, holder = replies[i]
          next job["jid"] if pushed
          conflict(job, holder)
          nil
        end
      end
    end
  end
end
