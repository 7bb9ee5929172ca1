# frozen_string_literal: true

require "socket"
require "securerandom"

module Deckhand
  module Server
    # hostname:pid:nonce, as Sidekiq names its processes. A new one after fork.
    module Identity
      module_function

      def generate = "#{hostname}:#{::Process.pid}:#{SecureRandom.hex(6)}"

      def hostname = ENV["DYNO"] || Socket.gethostname
    end
  end
end
