# frozen_string_literal: true

require "redis_client"

module Torture
  # A connection to the books or, for the driver's reads, to the system
  # under test. Its timeout is well above redis-client's 1 s default: on a
  # loaded machine a census or a ledger write may wait longer, which slows
  # the run but must not fail it. Deckhand's own connections keep their
  # settings.
  #
  #   redis = Torture.redis(redis_server.url)
  DRIVER_TIMEOUT = 10

  def self.redis(url) = RedisClient.new(url: url, timeout: DRIVER_TIMEOUT)
end
