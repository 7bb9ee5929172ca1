# frozen_string_literal: true

# bench/jruby.rb's Sidekiq server, the same on MRI and on JRuby.
#
#   bin/jruby -rbundler/setup -e 'load Gem.bin_path("sidekiq", "sidekiq")' -- -r ./bench/app/jruby_sidekiq_app.rb -c 10 -q bench
require_relative "sidekiq_app"
require_relative "jruby_jobs"

DeckhandBench::JRubyJobs.define(Sidekiq::Job)
