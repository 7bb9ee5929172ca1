# frozen_string_literal: true

require "socket"

module Sidekiq
  # Sidekiq's systemd notify calls in drop-in mode, for code that sends its
  # own states. A `deckhand` server already sends READY=1, STOPPING=1 and the
  # watchdog pings when systemd gives it a NOTIFY_SOCKET (docs/operations.md).
  #
  #   Sidekiq::SdNotify.status("warming caches")
  #   Sidekiq::SdNotify.ready   # => bytes sent, or nil outside systemd
  module SdNotify
    # The socket could not be reached (Sidekiq 8 raises it in place of the
    # system's error, which is its cause).
    class NotifyError < RuntimeError; end

    module_function

    def ready(unset_env = false) = notify("READY=1", unset_env)

    def stopping(unset_env = false) = notify("STOPPING=1", unset_env)

    def reloading(unset_env = false) = notify("RELOADING=1", unset_env)

    def watchdog(unset_env = false) = notify("WATCHDOG=1", unset_env)

    def status(text, unset_env = false) = notify("STATUS=#{text}", unset_env)

    def mainpid(pid, unset_env = false) = notify("MAINPID=#{pid}", unset_env)

    def errno(number, unset_env = false) = notify("ERRNO=#{number}", unset_env)

    def fdstore(unset_env = false) = notify("FDSTORE=1", unset_env)

    # True when systemd watches this process (WatchdogSec in its unit).
    def watchdog?
      usec = Integer(ENV["WATCHDOG_USEC"].to_s, 10, exception: false)
      pid = ENV["WATCHDOG_PID"]
      !usec.nil? && usec.positive? && (pid.nil? || pid.empty? || pid == ::Process.pid.to_s)
    end

    def notify(state, unset_env = false)
      path = ENV["NOTIFY_SOCKET"]
      return nil if path.nil? || path.empty?
      ENV.delete("NOTIFY_SOCKET") if unset_env
      address = path.start_with?("@") ? "\0#{path[1..]}" : path
      socket = Socket.new(:UNIX, :DGRAM)
      begin
        socket.sendmsg(state, 0, Socket.sockaddr_un(address))
      rescue SystemCallError, IOError => e
        raise NotifyError, "#{e.class}: #{e.message}"
      ensure
        socket.close
      end
    end
  end
end
