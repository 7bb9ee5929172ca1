# frozen_string_literal: true

# maxitest/threads fails a test that leaves threads running. Left out in both
# the baseline and drop-in runs, so the figures compare the same checks.
