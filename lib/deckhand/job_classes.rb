# frozen_string_literal: true

require_relative "errors"

module Deckhand
  # Which classes a payload may run: those that include Deckhand::Job. That
  # covers drop-in mode's Sidekiq::Job (and Sidekiq::Worker), the Active Job
  # wrappers (Deckhand's, and the two names of Sidekiq's it maps onto it
  # through ClassAliases), iterable jobs and Deckhand's own jobs (batch
  # callbacks). Anything else is refused before it is built: whoever can
  # write to Redis must not be able to call `new` and `perform` on any class
  # an application happens to have.
  #
  #   Deckhand::JobClasses.check!(WelcomeJob, "WelcomeJob")  # => WelcomeJob
  #   Deckhand::JobClasses.check!(Canary, "Canary")          # raises Deckhand::NotAJobClass
  #
  # Sidekiq's processor builds whatever class a payload names, then sets its
  # jid, which fails for any class without Sidekiq::Job's accessors: the
  # classes Sidekiq can run are the ones this rule lets through, and a class
  # it refuses was built first. The server checks a class once, when it
  # looks it up (JobRunner caches the classes that passed).
  module JobClasses
    # How much of a class name an error repeats (a payload's name may be huge).
    NAME_LIMIT = 200

    module_function

    # A Deckhand job, or one of the sidekiq gem's when that gem is loaded
    # beside Deckhand (an application moving over runs the same classes on
    # both: test/compat). In drop-in mode Sidekiq::Job includes Job itself.
    def job?(klass)
      return false unless klass.is_a?(Class)
      return true if klass < Job
      sidekiq = sidekiq_job
      !sidekiq.nil? && klass < sidekiq
    end

    # The sidekiq gem's Sidekiq::Job, when it is loaded (a foreign gem's
    # constant: asked about, never loaded).
    def sidekiq_job
      return nil unless Object.const_defined?(:Sidekiq, false) && ::Sidekiq.const_defined?(:Job, false)
      job = ::Sidekiq::Job
      job.is_a?(Module) ? job : nil
    end

    # `klass` when it is a job class, else raises NotAJobClass naming it
    # (as the payload spelled it), the rule and the fix.
    def check!(klass, name)
      return klass if job?(klass)
      shown = (name.to_s.length > NAME_LIMIT) ? "#{name.to_s[0, NAME_LIMIT]}..." : name.to_s
      what = if klass.is_a?(Class) then "is not a job class"
      elsif klass.is_a?(Module) then "is a Module, not a job class"
      else "is a constant, not a job class"
      end
      raise NotAJobClass, "#{shown} #{what}: include Deckhand::Job (or Sidekiq::Job in drop-in mode) in a class " \
        "to run it as a job; a payload naming any other class is never run, so that whoever can write to Redis " \
        "cannot call an application's classes"
    end
  end
end
