# frozen_string_literal: true

require "cgi"
require "json"
require "rack"
require "set"
require_relative "locale_helpers"
require_relative "markup_helpers"

module Sidekiq
  # The helpers Sidekiq Web extensions' actions and templates call, in
  # drop-in mode (Sidekiq::WebAction includes them): paths, escaping,
  # languages (WebLocaleHelpers), markup (WebMarkupHelpers), the data API's
  # objects. The includer provides `env`, `request`, `params`, `session`
  # and `settings`.
  #
  #   <a href="<%= root_path %>cron"><%= h(t("Cron")) %></a>
  #   <form method="post"><%= csrf_tag %> ... </form>
  module WebHelpers
    include WebLocaleHelpers
    include WebMarkupHelpers

    # A job's own fields; the rest are shown as extra items.
    RETRY_JOB_KEYS = Set.new(%w[queue class args retry_count retried_at failed_at jid error_message error_class backtrace
      error_backtrace enqueued_at retry wrapped created_at tags display_class]).freeze
    # The query parameters a page's links carry on. Not frozen: a plugin's
    # page adds its own, as in Sidekiq (sidekiq-status pushes "per_page").
    SAFE_QPARAMS = %w[page direction only]

    def root_path = "#{env["SCRIPT_NAME"]}/"

    def current_path = @current_path ||= request.path_info.to_s.delete_prefix("/")

    def to_json(value) = JSON.generate(value)

    def singularize(str, count) = (count == 1 && str.respond_to?(:singularize)) ? str.singularize : str

    def workset = @work ||= Sidekiq::WorkSet.new

    def processes = @processes ||= Sidekiq::ProcessSet.new

    def stats = @stats ||= Sidekiq::Stats.new

    def current_status = workset.size.zero? ? "idle" : "active"

    # Natural order of host names ("a.2" before "a.10"), when every process has one.
    def sorted_processes
      @sorted_processes ||= if processes.all? { |process| process["hostname"] }
        processes.sort_by { |process| process["hostname"].split(/(\d+)/).map { |part| part.match?(/\A\d+\z/) ? part.to_i : part } }
      else
        processes
      end
    end

    # "high: 3, default: 2; single" from capsules' queue weights (0: unweighted).
    def busy_weights(capsule_weights)
      [capsule_weights].flatten.map do |weights|
        weights.map { |queue, weight| weight.positive? ? "#{queue}: #{weight}" : queue }.join(", ")
      end.join("; ")
    end

    def redis_url = Sidekiq.redis { |conn| conn.config.server_url }

    def redis_info = Sidekiq.default_configuration.redis_info

    # Every match of substr in a set (a page of them all).
    def search(jobset, substr)
      found = jobset.scan(substr).to_a
      @current_page = 1
      @count = @total_size = found.size
      found
    end

    def unfiltered?
      substr = url_params("substr")
      yield if substr.nil? || substr.empty?
    end

    def job_params(job, score) = "#{score}-#{job["jid"]}"

    def parse_params(params)
      score, jid = params.split("-", 2)
      [score.to_f, jid]
    end

    def qparams(options) = to_query_string(params.merge(options.transform_keys(&:to_s)))

    def to_query_string(params)
      params.filter_map { |key, value| "#{key}=#{CGI.escape(value.to_s)}" if SAFE_QPARAMS.include?(key) }.join("&")
    end

    def retry_extra_items(retry_job)
      @retry_extra_items ||= retry_job.item.except(*RETRY_JOB_KEYS)
    end

    # Back to the list page the form was on, with its query.
    def redirect_with_query(url)
      query = request.referer.to_s[/\?(.*)\z/, 1]
      redirect(query ? "#{url}?#{query}" : url)
    end

    def environment_title_prefix
      environment = Sidekiq.default_configuration[:environment] || ENV["APP_ENV"] || ENV["RAILS_ENV"] || ENV["RACK_ENV"] || "development"
      "[#{environment.upcase}] " unless environment == "production"
    end

    def product_version = "Deckhand v#{Deckhand::VERSION} (Sidekiq drop-in mode)"

    def server_utc_time = Time.now.utc.strftime("%H:%M:%S UTC")

    # The dashboard and metrics pages do not poll.
    def pollable? = !(current_path.empty? || current_path.include?("metrics"))

    def retry_or_delete_or_kill(job, params)
      if params["retry"] then job.retry
      elsif params["delete"] then job.delete
      elsif params["kill"] then job.kill
      end
    end

    def delete_or_add_queue(job, params)
      if params["delete"] then job.delete
      elsif params["add_to_queue"] then job.add_to_queue
      end
    end
  end
end
