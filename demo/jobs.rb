# frozen_string_literal: true

# The demo's application: the jobs `deckhand -r demo/jobs.rb` loads (and the
# demo's dashboard, so that what it does to a batch's jobs reaches the batch).
require "deckhand"
require "deckhand/batch"

# Its queues are the demo's own (demo-*), so that pointed at a Redis that
# holds other work (bin/demo --redis URL) it neither runs nor counts that work.
module Demo
  QUEUES = %w[demo-default demo-mailers demo-webhooks].freeze

  # Fast work: a little arithmetic.
  class ChecksumJob
    include Deckhand::Job

    deckhand_options queue: "demo-default"

    def perform(order_id, lines)
      lines.sum { |line| line["qty"] * line["price_cents"] } + order_id
    end
  end

  # I/O-bound work: waits as an HTTP call or an email would.
  class DeliverEmailJob
    include Deckhand::Job

    deckhand_options queue: "demo-mailers"

    def perform(address, milliseconds)
      sleep milliseconds / 1000.0
      address
    end
  end

  # Fails its first attempts, then succeeds: shows retries with a short delay.
  # Every tenth one never succeeds and lands in the dead set after 2 retries.
  class FlakyWebhookJob
    include Deckhand::Job

    deckhand_options queue: "demo-webhooks", retry: 2
    deckhand_retry_in { |count, _error, _payload| count + 1 }

    def perform(id)
      attempt = (deckhand_payload["retry_count"] || -1) + 2
      raise IOError, "webhook #{id} timed out (attempt #{attempt})" if id % 10 == 0 || attempt < 2
    end
  end

  # The webhooks' batch callback: runs once every webhook has run at least
  # once (some are still retrying then).
  class WebhookReport
    def on_complete(status, options)
      Deckhand.logger.info("batch #{status.bid} (#{options["what"]}): every job ran once; " \
        "#{status.total - status.pending} of #{status.total} succeeded so far, #{status.failures} failing")
    end
  end

  # Scheduled a few seconds ahead.
  class ReminderJob
    include Deckhand::Job

    deckhand_options queue: "demo-default"

    def perform(user_id) = user_id
  end
end
