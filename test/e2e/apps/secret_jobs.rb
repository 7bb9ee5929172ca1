# frozen_string_literal: true

# Jobs with encrypted arguments for the end-to-end tests
# (test/e2e/job_options_test.rb): the key comes from the environment, as it
# would in production.

require_relative "jobs"
require "digest/sha2"

Deckhand.configure do |c|
  c.encryption(active_version: 1) { |version| ENV["E2E_KEY_#{version}"]&.unpack1("m0") }
end

module E2E
  # Records a digest of the bag it received (never the bag: that would put
  # the secret in Redis), and fails when told to, quoting its secret.
  class SecretJob
    include Deckhand::Job

    deckhand_options encrypt: true, retry: 0

    def perform(label, bag)
      E2E.call("RPUSH", "e2e:secret", JSON.generate([label, Digest::SHA256.hexdigest(JSON.generate(bag))]))
      raise "refused token #{bag["token"]}" if label == "fail"
    end
  end
end
