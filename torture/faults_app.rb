# frozen_string_literal: true

# The application of scenario 11 (faults): the torture app and the fault
# drill's jobs (torture/support/faults/jobs.rb), with batches installed, a
# throttled queue, a fair queue and a periodic entry
# (torture/support/faults/setup.rb).
require_relative "app"
require_relative "support/faults/feature_jobs"

Deckhand.configure { |config| Torture::Faults::Setup.apply(config) }
