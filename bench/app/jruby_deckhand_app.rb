# frozen_string_literal: true

# bench/jruby.rb's Deckhand server, the same on MRI and on JRuby: the common
# jobs plus its own (jruby_jobs.rb).
#
#   bin/jruby -rbundler/setup exe/deckhand -r bench/app/jruby_deckhand_app.rb -c 10 -q bench
require_relative "deckhand_app"
require_relative "../../lib/deckhand/iterable_job"
require_relative "jruby_jobs"

DeckhandBench::JRubyJobs.define(Deckhand::Job)
