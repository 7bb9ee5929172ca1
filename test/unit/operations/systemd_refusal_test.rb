# frozen_string_literal: true

require "test_helper"
require "deckhand/operations/systemd"

# systemd's notify protocol needs a UNIX datagram socket: on JRuby, which
# cannot open one, the server refuses to start under Type=notify, saying what
# to configure instead.
class SystemdRefusalTest < Minitest::Test
  Systemd = Deckhand::Operations::Systemd

  def test_jruby_refuses_systemd_notification
    error = assert_raises(Deckhand::ConfigError) { Systemd.require_datagrams!("/run/notify", engine: "jruby") }
    assert_match(/NOTIFY_SOCKET \(\/run\/notify\), but JRuby cannot open UNIX datagram sockets/, error.message)
    assert_match(/Type=simple or Type=exec/, error.message)
    assert_nil Systemd.require_datagrams!("/run/notify", engine: "ruby")
    return unless RUBY_ENGINE == "jruby"
    # Where the server boots under systemd, before any socket is opened.
    assert_raises(Deckhand::ConfigError) { Systemd.boot(nil, env: {"NOTIFY_SOCKET" => "/run/notify"}) }
  end
end
