# frozen_string_literal: true

require_relative "../class_aliases"
require_relative "../job_classes"

module Deckhand
  module Server
    # The class a job's "class" names, for a JobRunner: an alias first
    # (ClassAliases), then the constant, and only ever a job class
    # (JobClasses): a class that is not one raises NotAJobClass before
    # anyone builds it. Classes that passed are kept, so the rule costs a
    # Hash lookup per job; nothing is kept while code reloads (`cache:
    # false`), where each job looks its class up again.
    #
    #   classes = ClassLookup.new(cache: true)
    #   classes.job_class("WelcomeJob")   # => WelcomeJob
    #   classes.job_class("Canary")       # raises Deckhand::NotAJobClass
    #   classes.job_class("Gone")         # raises Deckhand::UnknownJobClass (retried: a deploy)
    class ClassLookup
      def initialize(cache:)
        @cache = cache
        @classes = {}
        @lock = Mutex.new
      end

      def job_class(name)
        return resolve(name) unless @cache
        @classes[name] || @lock.synchronize { @classes[name] ||= resolve(name) }
      end

      # The class for its retry options, or nil when it cannot be had: the
      # lookup already failed the job (an unknown class, Rails' autoloader
      # raising LoadError for a missing gem), and the failure must be recorded.
      def retry_class(name)
        job_class(name)
      rescue Deckhand::Shutdown
        raise
      rescue Exception # rubocop:disable Lint/RescueException -- whatever the lookup raised is already the job's error
        nil
      end

      private

      def resolve(name)
        JobClasses.check!(ClassAliases[name] || Object.const_get(name), name)
      rescue NameError => e
        raise UnknownJobClass, unknown(name, e)
      rescue LoadError => e # an autoload that needs a gem this bundle lacks: a failure of this job, not of the thread
        raise UnknownJobClass, "looking #{name} up loaded a file that failed (#{e.class}: #{e.message}); " \
          "it will be retried"
      end

      # The name and the fix first, where a list cut short still shows them.
      # NameError#message is not repeated: on Ruby 3.1 error_highlight puts
      # the line of source that looked the constant up (this file's) into it.
      def unknown(name, error)
        shown = (name.to_s.length > JobClasses::NAME_LIMIT) ? "#{name.to_s[0, JobClasses::NAME_LIMIT]}..." : name.to_s
        missing = error.name.to_s
        detail = (missing.empty? || missing == shown || shown.end_with?("::#{missing}")) ? "" : " (#{missing} is not defined)"
        "#{shown} is not a class this process knows: is it loaded (deckhand -r)?#{detail} " \
          "During a deploy, old processes may see new jobs: it will be retried"
      end
    end
  end
end
