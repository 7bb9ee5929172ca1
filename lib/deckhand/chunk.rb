# frozen_string_literal: true

module Deckhand
  # The jobs of one class a server runs in one call: a job class that declares
  # `chunk:` keeps its pushes one job a record, and a server hands the waiting
  # ones to `perform_chunk` together (docs/chunks.md). Each member stays a job:
  # its own jid, retries, dead entry, unique lock, batch and metrics. A member
  # named with #fail is retried alone, with its own backoff; when
  # perform_chunk raises, every member fails with that error; the others
  # succeed, and never run again.
  #
  #   class SyncEmployeeJob
  #     include Deckhand::Job
  #     deckhand_options chunk: {size: 1000, wait: 0.5}
  #
  #     def perform_chunk(chunk)
  #       rows = Employee.where(emp_no: chunk.args.map(&:first)).index_by(&:emp_no)
  #       chunk.each do |(emp_no), job|
  #         rows.fetch(emp_no).sync!
  #       rescue => e
  #         chunk.fail(job, e)        # this member alone goes to retry
  #       end
  #     end
  #
  #     def perform(emp_no) = Employee.find_by!(emp_no: emp_no).sync!   # one job, run alone
  #   end
  class Chunk
    include Enumerable

    # The largest `size:` a class may give: jobs a call.
    MAX_SIZE = 10_000
    # The longest `wait:` a class may give: seconds to gather a chunk.
    MAX_WAIT = 60

    # Whether `value` is a valid `chunk:` option: false (no chunks, for a
    # subclass), or {size:, wait:} with size 1..MAX_SIZE and wait (default 0)
    # 0..MAX_WAIT seconds.
    def self.options?(value)
      return true if value == false
      return false unless value.is_a?(Hash) && (value.keys.map(&:to_s) - %w[size wait]).empty?
      size = value[:size] || value["size"]
      wait = value.key?(:wait) ? value[:wait] : value.fetch("wait", 0)
      size.is_a?(Integer) && size.between?(1, MAX_SIZE) && wait.is_a?(Numeric) && wait.between?(0, MAX_WAIT)
    end

    # The option as jobs store it: {"size" => Integer, "wait" => seconds}.
    def self.options(value)
      return false if value == false
      value = value.transform_keys(&:to_s)
      {"size" => value["size"], "wait" => value.fetch("wait", 0)}.freeze
    end

    # The chunk options of `klass` ({"size" =>, "wait" =>}), or nil when its
    # jobs run one at a time.
    def self.of(klass) = (klass.respond_to?(:deckhand_options) && klass.deckhand_options["chunk"]) || nil

    # The chunk options `job` runs with on a server: its class's, or what a
    # class that decides per job (an Active Job wrapper's deckhand_chunk)
    # says for it; nil when it runs alone.
    def self.for_job(klass, job) = klass.respond_to?(:deckhand_chunk) ? klass.deckhand_chunk(job) : of(klass)

    # Runs one job as a chunk of one, where jobs run one at a time (testing
    # mode, perform_inline): the member's failure is raised.
    def self.perform_one(instance, args, job)
      check!(instance)
      chunk = new([[args, job]])
      instance.perform_chunk(chunk)
      error = chunk.failure(job["jid"])
      raise error if error
    end

    # Raises, naming the fix, unless the chunked class's `instance` has perform_chunk.
    def self.check!(instance)
      return if instance.respond_to?(:perform_chunk)
      raise ConfigError, "#{instance.class} declares chunk: but defines no perform_chunk(chunk); define it, or remove the chunk option"
    end

    # members: [args, job] pairs, in the order they were fetched;
    # cancelled: answers whether a member's cancel was seen (by its jid).
    def initialize(members, cancelled: nil)
      @members = members
      @failures = {}
      @results = {}
      @cancelled = cancelled
    end

    # Yields each member's args (as perform would get them) and its job Hash
    # (its "jid", "retry_count", ...).
    def each(&)
      return enum_for(:each) { size } unless block_given?
      @members.each { |args, job| yield args, job }
      self
    end

    # Each member's args, in order: `chunk.args.map(&:first)` for the first argument.
    def args = @members.map(&:first)

    # Each member's job Hash, in order.
    def jobs = @members.map(&:last)

    # How many jobs the chunk holds.
    #
    #   chunk.size   # => 1000
    #
    # @return [Integer]
    def size = @members.size

    # Marks one member failed with `error` (an Exception): it goes to retry
    # (or the dead set) alone, as if its own perform had raised it, once
    # perform_chunk returns. `job` is the member's job Hash or its jid.
    def fail(job, error)
      jid = member!(job, "fail")
      unless error.is_a?(Exception)
        raise ArgumentError, "chunk.fail: give the member's error as an Exception (like chunk.fail(job, e) in a rescue), got #{error.class}"
      end
      @failures[jid] = error
      nil
    end

    # Whether a member was cancelled (Client.cancel) while the chunk runs:
    # its server hears of it at its next heartbeat, and perform_chunk may
    # leave it out. A member whose cancel came before perform_chunk returned
    # ends cancelled, whatever was done with it (docs/cancelling.md); a chunk
    # is never interrupted for one member. `job` is the member's job Hash or
    # its jid.
    #
    #   chunk.each do |(id), job|
    #     next if chunk.cancelled?(job)
    #     Export.write(id)
    #   end
    #
    # @return [Boolean]
    def cancelled?(job)
      jid = job.is_a?(Hash) ? job["jid"] : job
      @cancelled ? @cancelled.call(jid) : false
    end

    # Gives one member's return value: what its own perform would have
    # returned. A member that is a workflow step hands it to the steps after
    # it (Workflow.results_of), and a member whose class keeps results
    # (`result:`) keeps it; a member given none returns nil. `job` is the
    # member's job Hash or its jid.
    #
    #   chunk.each { |(id), job| chunk.result(job, {"synced" => id}) }
    def result(job, value)
      @results[member!(job, "result")] = value
      nil
    end

    # The error #fail recorded for the member with `jid`, or nil.
    def failure(jid) = @failures[jid] # :nodoc:

    # The value #result gave the member with `jid`, or nil.
    def result_of(jid) = @results[jid] # :nodoc:

    # Each member's jid => the value #result gave it (Active Job's chunks carry them back).
    attr_reader :results # :nodoc:

    private

    def member!(job, method)
      jid = job.is_a?(Hash) ? job["jid"] : job
      return jid if @members.any? { |_, member| member["jid"] == jid }
      raise ArgumentError, "chunk.#{method}: #{jid.inspect} is no member of this chunk; pass the job Hash chunk.each yields (or its \"jid\")"
    end
  end
end
