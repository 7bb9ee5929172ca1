# frozen_string_literal: true

module Deckhand
  class Store
    # The write of the reliable-push buffer (Client::PushBuffer), which must
    # reach Redis exactly once: the same round trip as Store::Queues.push, but
    # a refusal does not raise. Redis runs every command of a pipeline, so a
    # refused one (WRONGTYPE on one queue, OOM reached halfway) leaves the
    # others written; the outcome says which part Redis did not take, so the
    # buffer writes only that part again. Replicas that came short
    # (push_replicas) do not make a push unwritten: it is in the primary.
    #
    #   outcome = HeldPush.write(store, {"default" => [json]}, [])
    #   outcome.left            # => nil when Redis took it all, else [queued, scheduled, scheduled_queues] it refused
    #   outcome.refusal         # => the first refusal, a Deckhand::RedisError, or nil
    #   outcome.not_replicated  # => a Deckhand::NotReplicated naming the jobs it took, or nil
    module HeldPush
      Outcome = Struct.new(:left, :refusal, :not_replicated)

      module_function

      # Raises Deckhand::ConnectionError when the round trip failed (nothing
      # known to be written, or a lost reply: see Client::PushBuffer).
      def write(store, queued, scheduled, scheduled_queues = nil)
        keys = store.layout
        sets = Queues.scheduled_sets(keys, scheduled, scheduled_queues)
        commands = plan(keys, queued, sets)
        replies, short = Durability.replies(store) { |pipe| commands.each { |command, _| pipe.call(*command) } }
        refused = commands.zip(replies).filter_map { |(_, part), reply| part if part && reply.is_a?(RedisClient::Error) }
        error = replies.find { |reply| reply.is_a?(RedisClient::Error) }
        left = refused.empty? ? nil : left(keys, queued, sets, scheduled_queues, refused)
        Outcome.new(left, error && store.refusal(error), short && not_replicated(store, queued, sets, refused, short))
      end

      # [command, part] in pipeline order; part names what the command
      # writes ([:queued, queue] or [:scheduled, set]), nil for the set of
      # queue names (writing it twice changes nothing).
      def plan(keys, queued, sets)
        commands = []
        sets.each do |queue, entries|
          commands << [["SADD", keys::QUEUES, queue], nil] if keys.sets_per_queue?
          commands << [["ZADD", keys.scheduled_set(queue), *entries], [:scheduled, queue]]
        end
        queued.each do |queue, payloads|
          commands << [["SADD", keys::QUEUES, Queues.listed(keys, queue)], nil]
          commands << [["LPUSH", keys.queue(queue), *payloads], [:queued, queue]]
        end
        commands
      end

      def left(keys, queued, sets, scheduled_queues, refused)
        queues = []
        set_names = [] # plain mode's one set is nil
        refused.each { |kind, name| ((kind == :queued) ? queues : set_names) << name }
        refused_sets = sets.slice(*set_names)
        scheduled = refused_sets.values.flatten(1)
        if !scheduled.empty? && keys.sets_per_queue?
          scheduled_queues = refused_sets.flat_map { |queue, entries| [queue] * (entries.size / 2) }
        end
        [queued.slice(*queues), scheduled, scheduled.empty? ? nil : scheduled_queues]
      end

      def not_replicated(store, queued, sets, refused, (acknowledged, failure))
        written = queued.reject { |queue, _| refused.include?([:queued, queue]) }.values.flatten(1) +
          sets.reject { |queue, _| refused.include?([:scheduled, queue]) }.values.flatten(1).each_slice(2).map(&:last)
        return nil if written.empty?
        store.durability.not_replicated(store, acknowledged, written.filter_map { |raw| Queues.jid_of(raw) }, failure)
      end
    end
  end
end
