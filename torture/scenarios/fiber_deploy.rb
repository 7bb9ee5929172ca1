# frozen_string_literal: true

require_relative "graceful_deploy"

module Torture
  # 15. Scenario 7 with the work on a fiber capsule of 100 (`fibers: true`
  # in the servers' config file): rolling deploys while long jobs sleep in
  # fibers. The jobs that outlive the shutdown timeout are interrupted in
  # their fibers and handed back; none may be lost, and every server must
  # exit cleanly within its timeout.
  class FiberDeploy < GracefulDeploy
    NUMBER = 16
    NAME = "fiber-deploy"
    CAPSULE = "capsules:\n  io: {concurrency: 100, queues: [io], fibers: true}\n"

    private

    # Enough that jobs still run at every deploy: 200 fibers start 60 at once.
    def job_count = size(3000, 800)

    # The quick run within 20 s: each deploy waits out a 2 s timeout and a boot.
    def deploy_rounds = size(10, 3)

    def new_fleet(redis_url, **options) = super(redis_url, **options, settings: timing.merge(yaml: CAPSULE))

    def push_work(client, durations_ms, queue: "io") = super(client, durations_ms, queue: "io")
  end
end
