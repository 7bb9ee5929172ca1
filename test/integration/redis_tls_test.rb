# frozen_string_literal: true

require "test_helper"
require "openssl"
require "tmpdir"

# A Redis that speaks TLS only (a real redis-server with tls-port), and a
# client that does not trust its certificate: the error keeps the rediss://
# scheme, says TLS and the certificate, and does not ask whether
# redis-server is running. A client certificate, when given, is checked.
class RedisTlsTest < Minitest::Test
  def setup
    super
    @dir = Dir.mktmpdir("deckhand-tls")
    @ca_key, @ca = certificate("Deckhand test CA")
    key, cert = certificate("127.0.0.1", issuer: [@ca_key, @ca])
    File.write(File.join(@dir, "ca.pem"), @ca.to_pem)
    File.write(File.join(@dir, "server.pem"), cert.to_pem)
    File.write(File.join(@dir, "server.key"), key.to_pem)
    @port = Deckhand::DevRedis.free_port
    @pid = Process.spawn("redis-server", "--port", "0", "--tls-port", @port.to_s, "--save", "", "--appendonly", "no",
      "--dir", @dir, "--tls-cert-file", File.join(@dir, "server.pem"), "--tls-key-file", File.join(@dir, "server.key"),
      "--tls-ca-cert-file", File.join(@dir, "ca.pem"), "--tls-auth-clients", "optional", out: File::NULL, err: File::NULL)
    wait_for(message: "the TLS redis-server") { Socket.tcp("127.0.0.1", @port, connect_timeout: 0.2) { true } rescue false } # standard:disable Style/RescueModifier
  end

  def teardown
    Process.kill("TERM", @pid)
    Process.wait(@pid)
    FileUtils.rm_rf(@dir)
    super
  end

  def certificate(name, issuer: nil)
    key = OpenSSL::PKey::RSA.new(2048)
    cert = OpenSSL::X509::Certificate.new
    cert.version = 2
    cert.serial = rand(1 << 32)
    cert.subject = OpenSSL::X509::Name.parse("/CN=#{name}")
    cert.issuer = issuer ? issuer[1].subject : cert.subject
    cert.public_key = key.public_key
    cert.not_before = Time.now - 60
    cert.not_after = Time.now + 3600
    extensions = OpenSSL::X509::ExtensionFactory.new(issuer ? issuer[1] : cert, cert)
    if issuer
      cert.add_extension(extensions.create_extension("subjectAltName", "IP:127.0.0.1"))
    else
      cert.add_extension(extensions.create_extension("basicConstraints", "CA:TRUE", true))
      cert.add_extension(extensions.create_extension("keyUsage", "keyCertSign,cRLSign", true))
    end
    cert.sign(issuer ? issuer[0] : key, OpenSSL::Digest.new("SHA256"))
    [key, cert]
  end

  def store(**options) = Deckhand::Store.new({url: "rediss://:s3cret@127.0.0.1:#{@port}/0", connect_timeout: 2, **options}, size: 1)

  def test_an_untrusted_certificate_is_said_as_tls_with_the_scheme_kept
    error = assert_raises(Deckhand::ConnectionError) { store.call("PING") }
    assert_match(%r{\Athe TLS handshake with Redis at rediss://127\.0\.0\.1:#{@port}/0 failed \(.*certificate verify failed}, error.message)
    assert_includes error.message, "this host must trust the CA that signed it"
    assert_includes error.message, "ssl_params: {ca_file:"
    refute_includes error.message, "is redis-server running"
    refute_includes error.message, "s3cret"
  end

  def test_the_same_server_answers_a_client_that_trusts_its_ca
    trusting = store(ssl_params: {ca_file: File.join(@dir, "ca.pem")})
    assert_equal "PONG", trusting.call("PING")
    assert_equal "#<Deckhand::Store rediss://127.0.0.1:#{@port}/0>", trusting.inspect
  ensure
    trusting&.shutdown
  end

  # As a config file gives them: String keys, the certificate and key as paths.
  def test_ssl_params_from_a_config_file_connect_with_a_client_certificate
    key, cert = certificate("deckhand client", issuer: [@ca_key, @ca])
    File.write(File.join(@dir, "client.pem"), cert.to_pem)
    File.write(File.join(@dir, "client.key"), key.to_pem)
    config = Deckhand::Config.new(redis: {"url" => "rediss://127.0.0.1:#{@port}/0", "connect_timeout" => 2,
                                          "ssl_params" => {"ca_file" => File.join(@dir, "ca.pem"), "cert" => File.join(@dir, "client.pem"), "key" => File.join(@dir, "client.key")}})
    assert_equal "PONG", config.store.call("PING")
    assert_equal({ca_file: File.join(@dir, "ca.pem"), cert: File.join(@dir, "client.pem"), key: File.join(@dir, "client.key")}, config.redis[:ssl_params])
  ensure
    config&.store&.shutdown
  end

  def test_sentinels_from_a_config_file_read_as_redis_client_wants_them
    config = Deckhand::Config.new(redis: {"sentinels" => [{"host" => "10.0.0.1", "port" => 26379}], "name" => "mymaster"})
    assert_equal "redis+sentinel://10.0.0.1:26379/mymaster", config.store.location
  end

  def test_nothing_listening_still_asks_whether_redis_server_runs
    port = Deckhand::DevRedis.free_port
    error = assert_raises(Deckhand::ConnectionError) { Deckhand::Store.new({url: "rediss://127.0.0.1:#{port}/0", connect_timeout: 0.5}, size: 1).call("PING") }
    assert_match(%r{\ARedis at rediss://127\.0\.0\.1:#{port}/0 refused the connection .*is redis-server running\?}, error.message)
  end
end
