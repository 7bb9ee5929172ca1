# frozen_string_literal: true

# Sidekiq's tests load maxitest, which the bundle does not carry; of what it
# adds they use only minitest's spec syntax and autorun.
require "minitest/autorun"
