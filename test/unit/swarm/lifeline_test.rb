# frozen_string_literal: true

require "test_helper"
require "deckhand/swarm/lifeline"

# A swarm worker's watch on its supervisor runs as a supervised component:
# the end of the pipe stops the worker, a failed read is logged and retried.
class SwarmLifelineTest < Minitest::Test
  # A reader whose first read fails, as a broken descriptor would.
  class FailingOnce
    def initialize(reader) = (@reader = reader)

    def read
      return @reader.read if @failed
      @failed = true
      raise IOError, "the pipe broke"
    end
  end

  def setup
    super
    @log = StringIO.new
    @logger = Logger.new(@log)
    @reader, @writer = IO.pipe
    @gone = Queue.new
  end

  def teardown
    @lifeline&.stop
    @writer.close unless @writer.closed? # the read ends
    @lifeline&.join(5)
    @reader.close
    super
  end

  def test_the_end_of_the_pipe_stops_the_worker
    @lifeline = Deckhand::Swarm::Lifeline.new(@reader, logger: @logger, on_gone: -> { @gone << :gone }).start
    assert_equal "deckhand-lifeline", @lifeline.thread.name
    @writer.close
    wait_for(message: "the worker told to stop") { @gone.size == 1 }
    assert_includes @log.string, "the swarm supervisor is gone: stopping"
  end

  def test_a_failed_read_is_logged_and_the_watch_goes_on
    @lifeline = Deckhand::Swarm::Lifeline.new(FailingOnce.new(@reader), logger: @logger, on_gone: -> { @gone << :gone }).start
    wait_for(message: "the failed read logged") { @log.string.include?("lifeline crashed: IOError: the pipe broke; restarting") }
    wait_for(message: "the watch restarted") { @lifeline.running? }
    assert_empty @gone, "the supervisor is still there"
    @writer.close
    wait_for(message: "the worker told to stop") { @gone.size == 1 }
  end
end
