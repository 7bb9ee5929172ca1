# frozen_string_literal: true

require "json"
require "rack"

module Deckhand
  module DropIn
    # The forms of Sidekiq 7's dashboard, answered in drop-in mode through
    # Deckhand's API, so a script or bookmarklet that posts them keeps
    # working. A POST is Sidekiq's when it lacks Deckhand's `action` field;
    # WebPaths checks it (CSRF, the dashboard's authorization) first. Deckhand's
    # forms carry `action`, except its Busy page's (`signal`, `cancel`), which
    # Sidekiq's (`quiet`, `stop`) are told from.
    #
    #   forms = WebForms.new(Deckhand.config)
    #   forms.call(env, params)   # => a 302 to Sidekiq's page, or nil when not Sidekiq's form
    #
    # Sidekiq's fields: retry, delete, kill, add_to_queue (a job, or each
    # "score-jid" of key[]; a scheduled job without a queue goes to
    # "default", as Sidekiq's push files it), quiet and stop (a process by identity, or all),
    # pause and unpause (a queue; without them, clear it), key_val (a queued
    # job's JSON), locale (/change_locale).
    class WebForms
      # Sidekiq's dashboard languages: /change_locale keeps one of these in
      # the session, where Deckhand's pages read it too (Web::LocaleChoice;
      # those it has no texts for show in English).
      LOCALES = %w[ar cs da de el en es fa fr gd he hi it ja ko lt nb nl pl pt pt-br ru sv ta tr uk ur vi zh-cn zh-tw].freeze
      SETS = {"retries" => :retries, "scheduled" => :scheduled, "morgue" => :dead, "dead" => :dead}.freeze

      def initialize(config = nil)
        @config = config
      end

      # Runs Sidekiq's form at env's path; nil when the path has none.
      def call(env, params)
        path = env["PATH_INFO"].to_s.delete_suffix("/")
        case path
        when "/busy" then busy(params) && redirect(env, "busy") if params.key?("quiet") || params.key?("stop") # Deckhand's: "signal", "cancel"
        when "/change_locale" then change_locale(env, params)
        when %r{\A/queues/([^/]+)/delete\z} then delete_queued(unescape($1), params) && redirect(env, "queues/#{$1}", keep_query: true)
        when %r{\A/queues/([^/]+)\z} then change_queue(unescape($1), params) && redirect(env, "queues")
        when %r{\A/(retries|scheduled|morgue|dead)/all/(delete|retry|kill|add_to_queue)\z} then whole_set(SETS.fetch($1), $2) && redirect(env, page_of($1))
        when %r{\A/(retries|scheduled|morgue|dead)\z}
          Array(params["key"]).each { |key| act(SETS.fetch($1), key, params) }
          redirect(env, page_of($1), keep_query: true)
        when %r{\A/(retries|scheduled|morgue|dead)/([^/]+)\z}
          act(SETS.fetch($1), unescape($2), params)
          redirect(env, page_of($1), keep_query: true)
        end
      end

      private

      def api = API.new(@config || Deckhand.config)

      # Embedded processes take their orders from the application they run in.
      def busy(params)
        processes = api.processes
        chosen = params["identity"] ? [processes.find(params["identity"])].compact : processes.reject { |process| process["embedded"] }
        chosen.each do |process|
          process.quiet! if params["quiet"]
          process.stop! if params["stop"]
        end
      end

      # Sidekiq Pro's pause and unpause, which Deckhand has; a form with
      # neither empties the queue, as Sidekiq's "Delete" does. With the
      # configuration's Redis, through Sidekiq::Queue, as Sidekiq's does.
      def change_queue(name, params)
        queue = Sidekiq::Queue.new(name) unless @config
        if params["pause"] then queue ? queue.pause! : api.queue(name).pause
        elsif params["unpause"] then queue ? queue.unpause! : api.queue(name).resume
        else
          queue ? queue.clear : api.queue(name).clear
        end
        true
      end

      # key_val is the queued job's JSON, as Sidekiq's queue page posts it.
      def delete_queued(name, params)
        raw = params["key_val"]
        Store::Jobs::Queues.remove((@config || Deckhand.config).store, name, raw) if raw.is_a?(String)
        true
      end

      def whole_set(name, verb)
        set = api.job_set(name)
        case verb
        when "delete" then set.delete_all
        when "retry", "add_to_queue" then set.retry_all # Sidekiq 8's scheduled page says add_to_queue
        when "kill" then set.kill_all unless name == :dead
        end
        true
      end

      # One job of a set, named as Sidekiq names it: "score-jid".
      def act(name, key, params)
        return unless key.is_a?(String)
        score, jid = key.split("-", 2)
        set = api.job_set(name)
        entries = set.in_scores(score.to_f, score.to_f).select { |entry| jid.nil? || entry.jid == jid } # "score-" names no job
        return if entries.empty?
        entries = entries.filter_map { |entry| queueless?(entry) ? to_default(set, entry) : entry } if name == :scheduled && params["add_to_queue"]
        if params["retry"] || params["add_to_queue"] then set.retry(entries)
        elsif params["delete"] then set.delete(entries)
        elsif params["kill"] && name != :dead then set.kill(entries)
        end
      end

      # A job written into the schedule without a queue: Sidekiq's push files
      # it in "default"; Deckhand's scheduler takes it for no job and sets it
      # aside in the dead set, and that stays so.
      def queueless?(entry) = !entry.corrupt? && entry.klass && entry.queue.to_s.empty?

      # The entry again with "default" for its queue, the copy filed before
      # the original leaves, so a crash between the two loses nothing; nil
      # when another request took the original first.
      def to_default(set, entry)
        copy = set.add(JSON.generate(entry.item.merge("queue" => "default")), entry.score)
        return copy if set.delete([entry]) == 1
        set.delete([copy])
        nil
      end

      # Sidekiq goes back to the page the form was on (its Referer), on
      # this site only.
      def change_locale(env, params)
        session = env["rack.session"]
        locale = params["locale"]
        session[:locale] = locale if session && LOCALES.include?(locale)
        request = Rack::Request.new(env)
        referer = request.referer.to_s
        return redirect(env, "") unless referer.start_with?("#{request.base_url}/")
        [302, {"location" => referer}, []]
      end

      def page_of(list) = (list == "dead") ? "morgue" : list

      def unescape(segment) = Rack::Utils.unescape_path(segment)

      # Sidekiq keeps the query of the page the form was on (its Referer).
      def redirect(env, page, keep_query: false)
        request = Rack::Request.new(env)
        location = "#{request.base_url}#{env["SCRIPT_NAME"]}/#{page}"
        query = keep_query && request.referer.to_s[/\?(.+)\z/, 1]
        [302, {"location" => query ? "#{location}?#{query}" : location}, []]
      end
    end
  end
end
