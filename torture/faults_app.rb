# frozen_string_literal: true

# The application of scenario 11 (faults): the torture app and the fault
# drill's jobs (torture/support/faults/jobs.rb), with batches installed.
require_relative "app"
require_relative "support/faults/jobs"
