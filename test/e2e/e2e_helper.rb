# frozen_string_literal: true

require "test_helper"
require "support/cli_process"
require_relative "apps/jobs"

module Deckhand
  # What every end-to-end test shares: starting the real CLI (always killed in
  # teardown, so no test leaves a process behind) and reading its Redis record.
  module E2EHelpers
    APP = File.expand_path("apps/jobs.rb", __dir__)

    def teardown
      clis = @clis || []
      clis.each(&:kill)
      (@config_dirs || []).each { |dir| FileUtils.rm_rf(dir) }
      warnings = clis.flat_map(&:own_warnings)
      assert_empty warnings, "Ruby warnings from Deckhand's code in the child process" if passed?
      super
    end

    # Starts `deckhand -r APP *args` without waiting for anything.
    def deckhand(*args, app: APP, env: {})
      cli = CliProcess.start(*(app ? ["-r", app] : []), *args, env: env)
      (@clis ||= []) << cli
      cli
    end

    # Runs `deckhand *args` (no application) to its exit.
    def deckhand_run(*args, env: {}, timeout: 15)
      cli = deckhand(*args, app: nil, env: env)
      cli.wait_exit(timeout: timeout)
      cli
    end

    # Starts it and waits until its capsules run.
    def boot(*args, env: {})
      cli = deckhand(*args, env: env)
      cli.identity
      cli
    end

    # A config file (-C) holding `text`, removed with the process' directory.
    def config_file(text)
      path = File.join(Dir.mktmpdir("deckhand-e2e-config"), "deckhand.yml")
      File.write(path, text)
      (@config_dirs ||= []) << File.dirname(path)
      path
    end

    def process_hash(identity) = redis.call("HGETALL", identity)

    def process_info(identity)
      info = redis.call("HGET", identity, "info")
      info && JSON.parse(info)
    end

    def counts = redis.call("HGETALL", "e2e:counts").transform_keys(&:to_i).transform_values(&:to_i)

    def trace = redis.call("LRANGE", "e2e:trace", 0, -1).map { |entry| JSON.parse(entry) }

    def started = redis.call("LRANGE", "e2e:started", 0, -1)

    def finished = redis.call("LRANGE", "e2e:finished", 0, -1)
  end
end
