# frozen_string_literal: true

# What the worker process loads (`-r ./config/boot.rb`) and the tests require.
require "sidekiq"
require_relative "initializers/sidekiq"
Dir[File.expand_path("../app/jobs/*.rb", __dir__)].sort.each { |file| require file }
