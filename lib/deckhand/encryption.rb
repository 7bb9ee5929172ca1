# frozen_string_literal: true

require "openssl"
require "json"

module Deckhand
  # Encrypted arguments: with `deckhand_options encrypt: true` the last
  # argument of a job (a Hash, the "secret bag") is stored as an envelope,
  # AES-256-GCM under the configured key version; the other arguments stay
  # readable. The envelope is Deckhand's own (docs/job-options.md), not
  # Sidekiq Enterprise's, which is unpublished:
  #
  #   {"deckhand_encrypted" => 1, "key_version" => 2,
  #    "iv" => base64 (12 bytes), "tag" => base64 (16 bytes), "data" => base64}
  #
  # The authenticated data is the job's jid, so an envelope cannot be moved
  # to another job. A job is sealed once, when pushed: retries, reschedules
  # and recoveries carry the envelope as it is.
  #
  #   Encryption.seal!(job, config.encryption_keys)   # job["args"].last becomes the envelope
  #   Encryption.args(job, config.encryption_keys)    # => args with the bag decrypted (a copy)
  module Encryption
    MARK = "deckhand_encrypted"
    MASK = "[encrypted]"

    module_function

    def seal!(job, keys)
      bag = job["args"].last
      return job if envelope?(bag)
      unless bag.is_a?(Hash)
        raise InvalidJob, "#{job["class"]} has encrypt: true, so its last argument must be a Hash (the secret bag), got #{bag.class}"
      end
      unless keys
        raise ConfigError, "#{job["class"]} has encrypt: true but no encryption keys are set: " \
          "Deckhand.configure { |c| c.encryption(active_version: 1) { |version| key_bytes(version) } }"
      end
      job["args"] = job["args"][0...-1] + [envelope(JSON.generate(bag), job["jid"], keys.active_version, keys.key(keys.active_version))]
      job
    end

    # The job's args with its secret bag decrypted (the job itself keeps the
    # envelope). Raises DecryptionError when this process lacks the key.
    def args(job, keys)
      args = job["args"]
      bag = args.last
      return args unless envelope?(bag)
      version = bag["key_version"]
      key = keys&.key(version)
      unless key
        why = keys ? "the encryption block returned none" : "Deckhand.configure { |c| c.encryption(...) } was not called"
        raise DecryptionError, "no encryption key for version #{version.inspect} in this process (#{why}); " \
          "the job retries, so deploy the key and it runs"
      end
      args[0...-1] + [JSON.parse(decrypt(bag, job["jid"], key))]
    end

    def envelope?(value) = value.is_a?(Hash) && value[MARK] == 1

    # Args for display: the envelope shown as "[encrypted]".
    def mask(args)
      return args unless args.is_a?(Array)
      args.map { |arg| envelope?(arg) ? MASK : arg }
    end

    # A job Hash for display, its envelope masked.
    def mask_item(item) = item.key?("args") ? item.merge("args" => mask(item["args"])) : item

    def envelope(plain, jid, version, key)
      cipher = OpenSSL::Cipher.new("aes-256-gcm").encrypt
      cipher.key = key
      iv = cipher.random_iv
      cipher.auth_data = jid.to_s
      data = cipher.update(plain) + cipher.final
      {MARK => 1, "key_version" => version, "iv" => b64(iv),
       "tag" => b64(cipher.auth_tag), "data" => b64(data)}
    end

    def b64(bytes) = [bytes].pack("m0")

    def unb64(text) = text.unpack1("m0")

    def decrypt(bag, jid, key)
      cipher = OpenSSL::Cipher.new("aes-256-gcm").decrypt
      cipher.key = key
      cipher.iv = unb64(bag["iv"].to_s)
      cipher.auth_tag = unb64(bag["tag"].to_s)
      cipher.auth_data = jid.to_s
      cipher.update(unb64(bag["data"].to_s)) + cipher.final
    rescue OpenSSL::Cipher::CipherError, ArgumentError => e
      raise DecryptionError, "the encrypted argument (key version #{bag["key_version"].inspect}) does not decrypt " \
        "(#{e.class}): wrong key for that version, or the envelope was altered"
    end
  end
end
