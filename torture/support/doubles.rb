# frozen_string_literal: true

module Torture
  # The jobs of a torture run that started more than once, told apart by
  # whether a SIGKILL explains it. A job may start again only after the
  # server of its previous start was killed: the run died with it, or the
  # run had finished and its acknowledgement died with it. A job's finish
  # is in the ledger before Deckhand acknowledges it (the acknowledgement
  # goes with the server's next round trip to Redis, a few milliseconds on),
  # so a job the ledger shows finished may still run again. Any other second
  # start is a double. A killed server's starts all came before its kill,
  # though the ledger may stamp the last of them a few milliseconds after the
  # driver noted the kill: a start is not compared with the kill of its own
  # server.
  #
  #   doubles = Doubles.new(ledger.starts, fleet.kills)
  #   doubles.explained     # => 2: jobs started again after their server was killed
  #   doubles.unexplained   # => 0: jobs started twice with no kill to explain it
  #   doubles.after_kill    # => {pid => jobs it started that started again after its kill}
  #   doubles.examples      # => ["9f3c... : 1470@0.00 (killed @0.01) 1756@7.61", ...]
  class Doubles
    # starts: the ledger's start events (jid, pid, at); kills: [pid, at] pairs.
    def initialize(starts, kills)
      @killed = kills.to_h
      @again = starts.group_by(&:jid).values.select { |runs| runs.size > 1 }.map { |runs| runs.sort_by(&:at) }
    end

    def explained = @again.count { |runs| explained?(runs) }

    def unexplained = @again.size - explained

    # Of the jobs a kill explains, how many each killed server had started.
    def after_kill
      @again.select { |runs| explained?(runs) }.each_with_object(Hash.new(0)) do |runs, counts|
        runs[0..-2].map(&:pid).uniq.each { |pid| counts[pid] += 1 }
      end
    end

    # A few of the unexplained, each as its starts (pid@seconds since its
    # first start, and when that pid was killed), for a failure's message.
    def examples(count = 3)
      @again.reject { |runs| explained?(runs) }.first(count).map do |runs|
        first = runs.first.at
        shown = runs.map do |s|
          kill = @killed[s.pid]
          "#{s.pid}@#{format("%.2f", s.at - first)}#{" (killed @#{format("%.2f", kill - first)})" if kill}"
        end
        "#{runs.first.jid}: #{shown.join(" ")}"
      end
    end

    private

    def explained?(runs)
      runs.each_cons(2).all? do |before, after|
        killed = @killed[before.pid]
        killed && killed <= after.at
      end
    end
  end
end
