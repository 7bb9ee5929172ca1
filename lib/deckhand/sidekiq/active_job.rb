# frozen_string_literal: true

require "active_job"
require "active_job/queue_adapters/deckhand_adapter"
require_relative "job/options"
require_relative "rails_reloader" if defined?(::Rails::VERSION)

# Active Job in drop-in mode, with the constants the sidekiq gem defines
# (7.3 and 8.x alike), whatever loaded first:
#
# - `queue_adapter = :sidekiq` resolves to Deckhand's adapter. Rails (7.2
#   and 8.1) autoloads its SidekiqAdapter from
#   "active_job/queue_adapters/sidekiq_adapter", which starts with
#   `gem "sidekiq"`; drop-in mode's shims folder, first on the load path,
#   answers that path with this file, and so does the sidekiq gem's own
#   copy of it when a plugin keeps the gem in the bundle. Loaded before
#   that autoload is reached, this file takes the constant's place.
# - `Sidekiq::ActiveJob::Wrapper` and `SidekiqAdapter::JobWrapper` are one
#   class, as in Sidekiq 8 (Sidekiq 7.3 made the second a subclass of the
#   first), named where the version drop-in mode stands in for writes it
#   (Sidekiq 8: Sidekiq::ActiveJob::Wrapper), so Sidekiq::Testing finds the
#   collected jobs under either.
# - The class name written into each job follows the fleet sharing the
#   Redis (DeckhandAdapter.class_name_for); with no Sidekiq process there,
#   the name the Sidekiq version drop-in mode stands in for writes
#   (Sidekiq::ActiveJob::Wrapper for 8, SidekiqAdapter::JobWrapper for 7,
#   which every Sidekiq 7 runs), so a rollback finds the queued jobs
#   runnable. A server runs every name.
# - Active Job classes take sidekiq_options, sidekiq_retry_in and
#   sidekiq_retries_exhausted (Sidekiq::Job::Options).
module ActiveJob
  module QueueAdapters
    # Rails' autoload of its own adapter gives way without running (outside
    # that autoload; inside it, the constant is not there yet), and so does
    # Rails' adapter itself, should something have loaded it (it needs the sidekiq gem).
    if autoload?(:SidekiqAdapter) || (const_defined?(:SidekiqAdapter, false) && !(const_get(:SidekiqAdapter, false) <= DeckhandAdapter))
      remove_const(:SidekiqAdapter)
    end

    # `queue_adapter = :sidekiq` in drop-in mode: Deckhand's adapter, named
    # "sidekiq" by Rails. `stopping?` is true once this process began a
    # graceful stop, which Rails 8.1's job continuations ask between steps.
    #
    #   ActiveJob::Base.queue_adapter = :sidekiq
    #   ActiveJob::Base.queue_adapter.stopping?   # => false until TERM
    class SidekiqAdapter < DeckhandAdapter
    end
  end
end

module Sidekiq
  # Sidekiq's home of the Active Job wrapper (its 7.3.3+ and 8 name).
  module ActiveJob
  end
end

# One wrapper class under both names, set first where the version writes
# it (a class takes the name it is first given), then at the other.
wrapper = Class.new(ActiveJob::QueueAdapters::DeckhandAdapter::JobWrapper)
homes = {
  "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper" => [ActiveJob::QueueAdapters::SidekiqAdapter, :JobWrapper],
  "Sidekiq::ActiveJob::Wrapper" => [Sidekiq::ActiveJob, :Wrapper]
}
first = Deckhand::DropIn.version.active_job_wrapper
[first, *(homes.keys - [first])].each do |name|
  home, constant = homes.fetch(name)
  home.const_set(constant, wrapper) unless home.const_defined?(constant, false)
end

ActiveJob::QueueAdapters::DeckhandAdapter.default_class_name = Deckhand::DropIn.version.active_job_wrapper

ActiveJob::Base.include(Sidekiq::Job::Options) unless ActiveJob::Base.respond_to?(:sidekiq_options)
