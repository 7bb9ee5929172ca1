# frozen_string_literal: true

module Deckhand
  class Client
    # The slices of one push_bulk, and what became of each: it returns every
    # jid, or raises an error carrying Deckhand::PushIncomplete, which says
    # exactly which jobs Redis holds and which it does not. Each slice is
    # written as a marked push (Store::MarkedPush): Client.write finds this
    # object in SLICE and hands it the outcome instead of raising, so that a
    # reply lost on its way back is asked about, not guessed. Every jid is
    # drawn before the first slice goes: a job not pushed is given back with
    # the jid it would have had. With push_replicas, a slice that reached too
    # few replicas does not stop the others: NotReplicated names them all at
    # the end (every job is queued).
    #
    #   BulkPush.new(config, item, list, ats, 1_000, by).call do |args, ats, jids|
    #     push_slice(args, ats, jids)   # => each job's jid, nil where a middleware stopped it
    #   end
    class BulkPush # :nodoc:
      def initialize(config, item, list, ats, size, by)
        @config = config
        @item = item
        @list = list
        @ats = ats
        @size = size
        @by = by
        @jids = Payload.jids(list.size)
        @index = nil
      end

      def call
        jids = []
        short = []
        @list.each_slice(@size).with_index do |slice, n|
          from = n * @size
          @written = []
          @scripted = [] # [given jids, jids pushed]
          previous = Thread.current[SLICE]
          Thread.current[SLICE] = self
          begin
            got = yield(slice, @ats && @ats[from, slice.size], @jids[from, slice.size])
          rescue => e
            raise incomplete(e, jids.compact, from, slice.size)
          ensure
            Thread.current[SLICE] = previous
          end
          failed = @written.map(&:last).find { |outcome| outcome.left || !outcome.doubt.empty? }
          raise incomplete(failed.refusal, jids.compact, from, slice.size) if failed
          short.concat(@written.filter_map { |*, outcome| outcome.not_replicated })
          jids.concat(got)
        end
        raise unreplicated(short) unless short.empty?
        jids
      end

      # Client.write's report in place of raising: the payloads it was
      # given and the outcome of their marked write.
      def written(queued, scheduled, outcome)
        @written << [queued, scheduled, outcome]
        nil
      end

      # The report of a push by script (a unique push: LockedPush): the jids
      # it was given, and those it pushed (told before it raises NotUnique
      # for one it did not push), or nil when the script's reply was lost.
      def scripted(given, pushed)
        @scripted << [given, pushed]
        nil
      end

      private

      # `error` stopped the slice of `count` jobs from `from`: the slices
      # before it are pushed, those after it are not; of its own, what the
      # outcomes of its writes say (nothing written when it raised before
      # any; in doubt when a unique push's script lost its reply).
      def incomplete(error, pushed, from, count)
        slice = @jids[from, count]
        given, unwritten, doubts = [], [], []
        @written.each do |queued, scheduled, outcome|
          given.concat(jids_of(queued, scheduled))
          unwritten.concat(jids_of(*outcome.left.first(2))) if outcome.left
          outcome.doubt.each { |doubt| doubts << [doubt, jids_of(*doubt.push.first(2))] }
        end
        @scripted.each { |sent, taken| doubts << [nil, sent] unless taken } # a script's lost reply: no mark to ask
        unsure = doubts.flat_map(&:last)
        landed = (given - unwritten - unsure) | @scripted.flat_map { |_, taken| taken.to_a }
        delivered = given | @scripted.flat_map(&:first)
        # Nothing delivered: it raised before (a middleware, a payload too
        # large), and no job of the slice reached Redis.
        missing = (delivered.empty? ? slice : delivered) - landed - unsure
        rest = (from + count...@list.size).map { |i| job(i) }
        checker = doubts.empty? ? nil : ->(_) { recheck(doubts) }
        PushIncomplete.attach(error, pushed: pushed + in_order(landed), unpushed: jobs(missing) + rest,
          in_doubt: jobs(unsure), total: @list.size, recheck: checker)
      end

      # PushIncomplete#recheck: [jobs Redis holds, jobs it does not] once it
      # answers about every doubt, else nil.
      def recheck(doubts)
        return nil if doubts.any? { |doubt, _| doubt.nil? }
        answers = doubts.map { |doubt, _| Store::PushMarks.recheck(@config.store, doubt) }
        return nil if answers.any?(&:nil?)
        landed, missing = [], []
        doubts.zip(answers).each do |(doubt, jids), refused|
          lost = jids_of(*doubt.push(refused.keys).first(2))
          landed.concat(jids - lost)
          missing.concat(lost)
        end
        [jobs(landed), jobs(missing)]
      end

      def in_order(jids) = jids.sort_by { |jid| index.fetch(jid) }

      # The jobs of these jids, in push order, as Client.push takes them.
      def jobs(jids) = in_order(jids).map { |jid| job(index.fetch(jid)) }

      def index = @index ||= @jids.each_with_index.to_h

      # The job at `i` as Client.push takes it, with the jid it has here.
      def job(i)
        job = @item.merge("args" => @list[i], "jid" => @jids[i])
        at = @ats && @ats[i]
        job["at"] = at if at
        job["partition_by"] = @by if @by
        job
      end

      def jids_of(queued, scheduled)
        payloads = queued.values.flatten(1) + scheduled.each_slice(2).map(&:last)
        payloads.filter_map { |json| Store::Jobs::Queues.jid_of(json) }
      end

      # push_replicas: every slice whose replicas came short, in one error.
      def unreplicated(errors)
        return errors.first if errors.one?
        jids = errors.flat_map(&:jids)
        NotReplicated.new("#{errors.size} slices of this push_bulk's jobs came short of replicas; the first: #{errors.first.message}",
          acknowledged: errors.map(&:acknowledged).min, wanted: errors.first.wanted, jids: jids)
      end
    end
  end
end
