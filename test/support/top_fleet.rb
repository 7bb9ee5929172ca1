# frozen_string_literal: true

require "json"
require "deckhand/cli/top_command"

module Deckhand
  # A small fleet in the test's Redis for `deckhand top`'s tabs: jobs pushed
  # through Deckhand's client, entries in each set, a periodic schedule, a
  # throttle, a limiter used once, and a live process record running a job.
  module TopFleet
    LONG_QUEUE = "reports_for_the_quarterly_accounts_department"

    def api = Deckhand::API.new(Deckhand.config)

    def seed_fleet
      client = Deckhand::Client.new
      3.times { |i| client.push("class" => "MailJob", "args" => [i], "queue" => "mailers") }
      client.push("class" => "ReportJob", "args" => ["q3"], "queue" => LONG_QUEUE)
      client.push("class" => "ReportJob", "args" => ["later"], "queue" => "reports", "at" => Time.now.to_f + 600)
      api.queue(LONG_QUEUE).pause
      @retry_jid = failed_job(:retries, "MailJob", "mailers", Time.now.to_f + 300)
      failed_job(:retries, "InvoiceJob", "billing", Time.now.to_f + 900)
      @dead_jid = failed_job(:dead, "ExportJob", "exports", Time.now.to_f - 60)
      api.throttle("mailers").set(concurrency: 2)
      Deckhand::Limiter.concurrent("stripe", 3).within_limit { nil }
      Deckhand::Store::Features::PeriodicState.write_schedule(Deckhand.config.store,
        {"leader" => "host:1:abc", "entries" => {"nightly" => {"cron" => "0 2 * * *", "timezone" => "UTC", "class" => "ReportJob", "queue" => "reports", "args" => []}}})
      live_process("host.example:4242:abc", "RunningJob")
    end

    # A job in a set as a failure files it (its JSON, as the server writes it).
    def failed_job(set, klass, queue, at)
      jid = SecureRandom.hex(12)
      job = {"class" => klass, "args" => [1, "two"], "queue" => queue, "jid" => jid, "retry" => true, "retry_count" => 2,
             "created_at" => Time.now.to_f - 3600, "enqueued_at" => Time.now.to_f - 3600, "failed_at" => Time.now.to_f - 120,
             "error_class" => "Net::ReadTimeout", "error_message" => "timed out after 30 seconds"}
      api.job_set(set).add(JSON.generate(job), at)
      jid
    end

    # A process record as a server's heartbeat writes it, running one job.
    def live_process(identity, klass)
      host, pid, = identity.split(":")
      redis.call("SADD", "processes", identity)
      redis.call("HSET", identity, "info", JSON.generate("hostname" => host, "pid" => pid.to_i, "concurrency" => 5, "queues" => ["mailers", "default"], "tag" => "", "started_at" => Time.now.to_f),
        "busy", "1", "beat", Time.now.to_f.to_s, "quiet", "false", "rss", "204800")
      redis.call("HSET", "#{identity}:work", "t1", JSON.generate("queue" => "default", "payload" => {"jid" => "r" * 24, "class" => klass, "args" => [7]}, "run_at" => Time.now.to_i - 5))
    end

    def top_view = Deckhand::CLI::Top::ViewState.new(api, location: "redis://test")

    # The view's screen as plain text at a size, on the tab `number` (1-8).
    def screen(view, width, height)
      Deckhand::CLI::Top::Frame.new(view, width: width, height: height, paint: Deckhand::CLI::Top::Paint.new(false), location: "redis://test").lines
    end

    def press(view, *keys)
      keys.each { |key| view.refresh if view.press(key) == :reload }
    end
  end
end
