# frozen_string_literal: true

module Deckhand
  # Finds where whole RESP frames end in a stream of bytes that arrives in
  # chunks: a client's commands (arrays of bulk strings) or a server's
  # replies (any RESP2 or RESP3 type). Feed it each chunk; it returns the
  # frames the chunk completed, each with where it starts and ends in the
  # stream, and keeps the bytes of a frame not yet whole.
  #
  #   commands = Deckhand::RespFrames.new(commands: true)
  #   commands.feed("*1\r\n$4\r\nPI")     # => []
  #   commands.feed("NG\r\n")              # => [[0, 14, ["PING"]]]
  #   replies = Deckhand::RespFrames.new
  #   replies.feed("+PONG\r\n:1")          # => [[0, 7, nil]]
  #   replies.offset                       # => 9: bytes fed so far
  #
  # With `commands: true` each frame comes with its command, an Array of
  # Strings; replies come with nil (the proxy counts them, it does not read
  # them). Push messages (`>`) count as frames: the connections proxied
  # subscribe to nothing.
  class RespFrames
    LINE = ["+", "-", ":", ",", "#", "(", "_"].freeze
    BLOB = ["$", "!", "="].freeze
    AGGREGATE = ["*", "~", ">"].freeze

    # Bytes fed so far.
    attr_reader :offset

    def initialize(commands: false)
      @commands = commands
      @buffer = +"".b
      @start = 0 # where @buffer begins in the stream
      @offset = 0
    end

    # [[start, finish, command or nil], ...] of the frames this chunk completed.
    def feed(chunk)
      @buffer << chunk.b
      @offset += chunk.bytesize
      frames = []
      position = 0
      while (finish = frame_end(position))
        command = @commands ? command_at(position) : nil
        frames << [@start + position, @start + finish, command]
        position = finish
      end
      @buffer = @buffer.byteslice(position..)
      @start += position
      frames
    end

    private

    # Where the frame starting at `position` ends, or nil when it is not whole yet.
    def frame_end(position)
      return nil if position >= @buffer.bytesize
      type = @buffer.byteslice(position, 1)
      eol = @buffer.index("\r\n", position + 1) or return nil
      header = @buffer.byteslice(position + 1, eol - position - 1)
      after = eol + 2
      if LINE.include?(type)
        after
      elsif BLOB.include?(type)
        length = Integer(header)
        return after if length.negative?
        finish = after + length + 2
        (finish <= @buffer.bytesize) ? finish : nil
      elsif AGGREGATE.include?(type) || type == "%" || type == "|"
        count = Integer(header)
        count *= 2 if type == "%" || type == "|"
        count.clamp(0..).times do
          after = frame_end(after) or return nil
        end
        (type == "|") ? frame_end(after) : after # an attribute precedes the reply it describes
      else
        raise ArgumentError, "not RESP at byte #{@start + position}: #{@buffer.byteslice(position, 20).inspect}"
      end
    end

    # The bulk strings of a whole command frame.
    def command_at(position)
      eol = @buffer.index("\r\n", position)
      count = Integer(@buffer.byteslice(position + 1, eol - position - 1))
      after = eol + 2
      Array.new(count) do
        eol = @buffer.index("\r\n", after)
        length = Integer(@buffer.byteslice(after + 1, eol - after - 1))
        part = @buffer.byteslice(eol + 2, length)
        after = eol + 2 + length + 2
        part
      end
    end
  end
end
