# frozen_string_literal: true

module Deckhand
  class Store
    # How the store runs a Lua script (a Store::Script subclass): by SHA,
    # sending the source again when Redis lost it (NOSCRIPT), alone, with
    # reads behind it in the same round trip, or many calls in one pipeline;
    # a refusal raised as the store's error, naming the script and, for
    # WRONGTYPE, the type of each key it declared. Included in Store; script
    # wrappers call these, nothing else should.
    #
    #   store.evalsha(Scripts::Unlock, [key], [jid])                  # => 1
    #   store.evalsha_then(Scripts::Fetch, keys, argv, [["LRANGE", lot, 0, -1]])
    #   store.evalsha_many(Scripts::Schedule, [[keys, argv], [keys, argv]])
    module ScriptRuns # :nodoc:
      # Runs a Store::Script subclass's Lua by SHA, sending the source again if
      # Redis lost it. Script wrappers call this; nothing else should.
      def evalsha(script, keys, argv, conn: nil)
        return eval_on(conn, script, keys, argv) if conn
        with { |c| eval_on(c, script, keys, argv) }
      end

      # Runs a script and, in the same round trip, `reads` (commands that read
      # what it wrote, like the LRANGE of a list it filled, so the data never
      # passes through Lua): returns [the script's reply, *the reads' replies].
      # A refusal of any of them raises, as #evalsha does.
      def evalsha_then(script, keys, argv, reads)
        with { |conn| eval_then(conn, script, keys, argv, reads) }
      end

      # Runs several calls of one Store::Script subclass's Lua ([[keys, argv],
      # ...], or [keys, argv, reads] for a call followed by its reads as in
      # #evalsha_then) in one pipelined round trip (in cluster mode the client
      # sends each node its own part at once); returns each call's reply (with
      # reads, [reply, *the reads' replies]), in order. A call Redis had lost
      # the script for is sent again with the source, its reads behind it; the
      # first other refusal is raised once every reply is in (the other calls ran).
      def evalsha_many(script, calls)
        with do |conn|
          replies = conn.pipelined(exception: false) do |pipe|
            calls.each do |keys, argv, reads|
              pipe.call("EVALSHA", script.sha, keys.size, *keys, *argv)
              reads&.each { |read| pipe.call(*read) }
            end
          end
          calls.map { |keys, argv, reads| one_of_many(conn, script, keys, argv, reads, replies.shift(1 + reads.to_a.size)) }
        end
      end

      private

      # A refusal names the script; for WRONGTYPE (Redis does not say which key)
      # it lists the type of each key the script declared.
      def eval_on(conn, script, keys, argv)
        begin
          conn.call("EVALSHA", script.sha, keys.size, *keys, *argv)
        rescue RedisClient::NoScriptError
          conn.call("EVAL", script.source, keys.size, *keys, *argv)
        end
      rescue RedisClient::CommandError => e
        types = e.is_a?(RedisClient::WrongTypeError) ? key_types(conn, keys) : nil
        raise @translation.call(e, script: File.basename(script.script_name), types: types)
      end

      def eval_then(conn, script, keys, argv, reads)
        replies = eval_pipelined(conn, "EVALSHA", script.sha, keys, argv, reads)
        # NOSCRIPT: the script did not run, so the reads found nothing it wrote.
        replies = eval_pipelined(conn, "EVAL", script.source, keys, argv, reads) if replies.first.is_a?(RedisClient::NoScriptError)
        # Any error reply, READONLY included (the client reports it as a
        # ConnectionError): returned as the script's reply, it would pass for one.
        error = replies.find { |reply| reply.is_a?(RedisClient::Error) }
        raise error if error
        replies
      rescue RedisClient::CommandError => e
        types = e.is_a?(RedisClient::WrongTypeError) ? key_types(conn, keys) : nil
        raise @translation.call(e, script: File.basename(script.script_name), types: types)
      end

      # A call's part of #evalsha_many's replies, as that method returns it.
      def one_of_many(conn, script, keys, argv, reads, mine)
        if (error = mine.find { |reply| reply.is_a?(RedisClient::Error) })
          raise @translation.call(error, script: File.basename(script.script_name)) unless mine.first.is_a?(RedisClient::NoScriptError)
          mine = reads ? eval_then(conn, script, keys, argv, reads) : [eval_on(conn, script, keys, argv)]
        end
        reads ? mine : mine.first
      end

      def eval_pipelined(conn, command, script, keys, argv, reads)
        conn.pipelined(exception: false) do |pipe|
          pipe.call(command, script, keys.size, *keys, *argv)
          reads.each { |read| pipe.call(*read) }
        end
      end

      def key_types(conn, keys)
        keys = keys.first(20)
        keys.zip(conn.pipelined { |pipe| keys.each { |key| pipe.call("TYPE", key) } })
      rescue RedisClient::Error
        nil
      end
    end
  end
end
