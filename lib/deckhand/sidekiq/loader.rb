# frozen_string_literal: true

module Sidekiq
  # Sidekiq 8's load hooks: a block registered for a part of Sidekiq runs
  # once that part has loaded (at once if it already has). Drop-in mode runs
  # the :api hooks when `sidekiq/api` loads, as Sidekiq does.
  #
  #   Sidekiq.loader.on_load(:api) { Sidekiq::Queue.include(MyQueueHelpers) }
  class Loader
    def initialize(config = Sidekiq.default_configuration)
      @config = config
      @hooks = Hash.new { |hash, name| hash[name] = [] }
      @loaded = {}
      @lock = Mutex.new
    end

    def on_load(name, &block)
      run_now = @lock.synchronize do
        @loaded[name] || (@hooks[name] << block && false)
      end
      block.call if run_now
      nil
    end

    # Runs the blocks waiting for `name` (outside the lock: a block may
    # register another); one that raises goes to the error handlers.
    def run_load_hooks(name)
      blocks = @lock.synchronize do
        @loaded[name] = true
        @hooks.delete(name)
      end
      blocks&.each do |block|
        block.call
      rescue => e
        @config.handle_exception(e, hook: name)
      end
    end
  end
end
