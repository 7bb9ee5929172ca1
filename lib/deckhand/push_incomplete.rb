# frozen_string_literal: true

module Deckhand
  # Carried by the error a push of many jobs raises when it did not push
  # them all (push_bulk, perform_bulk, a batch's jobs): the error keeps its
  # class (a ConnectionError when the connection was lost, a CommandError
  # when Redis refused, with the Redis error as `cause`) and tells which
  # jobs Redis holds and which it does not, so that pushing the rest again
  # queues every job once. A reply cut on its way back is no guess: Redis
  # is asked whether the write it answered took place (docs/reliability.md).
  #
  #   begin
  #     ImportJob.perform_bulk(rows)
  #   rescue Deckhand::PushIncomplete => e
  #     e.pushed         # => ["b4a5...", ...]: queued, in push order
  #     e.unpushed_args  # => [[2001], [2002], ...]: not queued, in order
  #     e.unpushed       # => [{"class" => "ImportJob", "args" => [2001], "jid" => "c0ff...", ...}, ...]
  #     e.in_doubt       # => []: jobs Redis could not be asked about (#recheck)
  #     ImportJob.perform_bulk(e.unpushed_args) unless e.unpushed.empty?
  #   end
  module PushIncomplete
    # Jids of the jobs Redis holds (with reliable_push, or holds for Redis
    # in this process: written once it answers), in push order.
    attr_reader :pushed

    # The jobs not pushed, in push order: Hashes Client.push takes, each
    # with the jid it would have had (pushing it keeps that jid).
    attr_reader :unpushed

    # The jobs whose write Redis may or may not have run: its reply was
    # lost and Redis did not answer the question since. Empty but when
    # Redis stayed away; #recheck asks again.
    attr_reader :in_doubt

    # Gives `error` the accounting (a copy when it is a Deckhand::Error,
    # with the counts in its message); `recheck` answers a list of jobs in
    # doubt with [pushed, unpushed] or nil while Redis cannot tell.
    def self.attach(error, pushed:, unpushed:, in_doubt: [], total: nil, recheck: nil)
      total ||= pushed.size + unpushed.size + in_doubt.size
      error = Error.reworded(error, "#{error.message} (#{summary(pushed.size, unpushed.size, in_doubt.size, total)})") if error.is_a?(Error)
      error.extend(self)
      error.instance_variable_set(:@pushed, pushed)
      error.instance_variable_set(:@unpushed, unpushed)
      error.instance_variable_set(:@in_doubt, in_doubt)
      error.instance_variable_set(:@rechecker, recheck)
      error
    end

    def self.summary(pushed, unpushed, doubt, total) # :nodoc:
      count = ->(n) { n.to_s.reverse.scan(/\d{1,3}/).join(",").reverse }
      text = "#{count[pushed]} of #{count[total]} jobs pushed (#pushed), #{count[unpushed]} not (#unpushed: push those again)"
      text << ", #{count[doubt]} in doubt (Redis did not answer whether it ran their write: #recheck)" if doubt.positive?
      text
    end

    # The args of the jobs not pushed, in order: perform_bulk's list.
    def unpushed_args = unpushed.map { |job| job["args"] }

    # Asks Redis again about the jobs in doubt; true once none is (each
    # then is in #pushed or #unpushed). Redis can tell for about ten
    # minutes after the reply was lost (Store::MarkedPush::TTL).
    def recheck
      return true if @in_doubt.empty?
      answer = @rechecker&.call(@in_doubt) or return false
      landed, missing = answer
      @pushed += landed.map { |job| job["jid"] }
      @unpushed = missing + @unpushed
      @in_doubt = []
      true
    end
  end
end
