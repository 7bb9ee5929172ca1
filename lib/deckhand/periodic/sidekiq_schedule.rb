# frozen_string_literal: true

require "yaml"

module Deckhand
  module Periodic
    # Reads the schedules of sidekiq-cron (config/schedule.yml) and
    # sidekiq-scheduler (`:scheduler: :schedule:` in config/sidekiq.yml, or
    # config/scheduler.yml) as periodic entries. Each item either maps (a
    # cron, class, queue, args, job options) or names its problem and fix;
    # disabled entries (`status: disabled`, `enabled: false`) are skipped.
    # Config::PeriodicSchedule#load_sidekiq_schedule registers them; `deckhand
    # migrate --check` reports them.
    #
    #   SidekiqSchedule.file("config/schedule.yml").each do |item|
    #     item.problem ? warn("#{item.name}: #{item.problem}") : register(item)
    #   end
    #   SidekiqSchedule.entries({"ping" => {"every" => "5m", "class" => "PingJob"}}).first.cron   # => "*/5 * * * *"
    class SidekiqSchedule
      Item = Struct.new(:name, :cron, :klass, :queue, :args, :options, :problem, :disabled, keyword_init: true)

      # Keys read, or accepted as having no effect on Deckhand.
      READ = %w[cron every at in interval class klass queue args description status enabled active_job].freeze
      # Job options an entry may carry (they go with each tick's job).
      OPTIONS = %w[retry backtrace dead retry_queue retry_for expires_in unique_for unique_until].freeze
      ONE_SHOT = "a one-time job, not a periodic one: push it with perform_at / perform_in"
      EVERY = {"s" => 1, "m" => 60, "h" => 3600, "d" => 86_400}.freeze

      # The items of a schedule file: sidekiq-cron's (name => entry, or a list
      # of entries with name:) or sidekiq-scheduler's (the same, or under
      # :scheduler: :schedule: / :schedule:).
      def self.file(path)
        raise ConfigError, "Sidekiq schedule file #{path} does not exist" unless File.exist?(path)
        data = YAML.safe_load_file(path, permitted_classes: [Symbol], aliases: true) || {}
        entries(unwrap(data))
      rescue Psych::Exception => e
        raise ConfigError, "Sidekiq schedule file #{path} is not valid YAML: #{e.message}"
      end

      def self.entries(list) = new.items(list)

      # Registers a schedule (a file's path, or its entries) in a
      # Config::PeriodicSchedule; raises naming every entry that does not map, and
      # registers nothing then. Returns the items registered.
      def self.register(periodic, source)
        items = source.is_a?(String) ? file(source) : entries(unwrap(source))
        wrong = items.select(&:problem).reject(&:disabled)
        unless wrong.empty?
          raise ConfigError, "Sidekiq schedule#{" #{source}" if source.is_a?(String)}: " \
            "#{wrong.map { |item| "entry #{item.name.inspect}: #{item.problem}" }.join("; ")} (docs/migrating-from-sidekiq.md)"
        end
        items.reject(&:disabled).each do |item|
          periodic.register(item.cron, item.klass, queue: item.queue, args: item.args, name: item.name, options: item.options)
        end
      end

      # sidekiq-scheduler's `:scheduler: {:schedule: ...}` or `:schedule:`; else the file itself.
      def self.unwrap(data)
        return data unless data.is_a?(Hash)
        data = data.transform_keys { |key| key.to_s.delete_prefix(":") }
        scheduler = data["scheduler"]&.transform_keys { |key| key.to_s.delete_prefix(":") }
        return (scheduler["enabled"] == false) ? {} : scheduler.fetch("schedule", nil) || {} if scheduler.is_a?(Hash)
        data.fetch("schedule", data)
      end

      def items(list)
        pairs = case list
        when Hash then list.to_a
        when Array then list.map { |spec| [spec.is_a?(Hash) && (spec["name"] || spec[:name]), spec] }
        else raise ConfigError, "a Sidekiq schedule must be a mapping of name => {cron:, class:} or a list of them, got #{list.class}"
        end
        pairs.map { |name, spec| item(name.to_s, spec) }
      end

      private

      def item(name, spec)
        return Item.new(name: name, problem: "not a mapping like {cron: \"0 2 * * *\", class: MyJob}") unless spec.is_a?(Hash)
        spec = spec.to_h { |key, value| [key.to_s.delete_prefix(":"), value] }
        klass = (spec["class"] || spec["klass"] || name).to_s
        item = Item.new(name: name, klass: klass, queue: spec["queue"]&.to_s, args: args(spec["args"]),
          options: spec.slice(*OPTIONS), disabled: spec["status"].to_s == "disabled" || spec["enabled"] == false)
        item.problem = problem(spec) || timing(spec, item)
        item
      end

      def problem(spec)
        unknown = spec.keys - READ - OPTIONS - %w[name]
        "#{unknown.map { |key| "#{key}:" }.join(", ")} #{(unknown.size == 1) ? "has" : "have"} no counterpart in Deckhand's periodic jobs; remove or rework it" unless unknown.empty?
      end

      def timing(spec, item)
        given = %w[cron every at in interval] & spec.keys
        return "needs one of cron: or every: (it has #{given.empty? ? "none" : given.join(" and ")})" unless given.size == 1
        case given.first
        when "cron" then spec["cron"].is_a?(String) ? (item.cron = spec["cron"]) && nil : "cron: with options (#{spec["cron"].inspect}): give the cron string alone"
        when "every" then every(spec["every"], item)
        when "interval" then "interval: runs at a fixed gap after each run; write the nearest cron with cron:"
        else "#{given.first}: is #{ONE_SHOT}"
        end
      end

      # A simple `every:` ("30s", "5m", "1h", "1d") that divides the minute,
      # hour or day evenly is a cron; counted from the clock, not the boot.
      def every(value, item)
        amount, unit = value.to_s.strip.match(/\A(\d+)\s*([smhd])\z/)&.captures
        seconds = amount && amount.to_i * EVERY[unit]
        item.cron = seconds && cron_every(seconds)
        "every: #{value.inspect} does not divide the minute, hour or day evenly: write it as a cron with cron:" unless item.cron
      end

      def cron_every(seconds)
        if seconds < 60 then (60 % seconds == 0) ? "#{step(seconds)} * * * * *" : nil
        elsif seconds < 3600 then (seconds % 60 == 0 && 3600 % seconds == 0) ? "#{step(seconds / 60)} * * * *" : nil
        elsif seconds < 86_400 then (seconds % 3600 == 0 && 86_400 % seconds == 0) ? "0 #{step(seconds / 3600)} * * *" : nil
        elsif seconds == 86_400 then "0 0 * * *"
        end
      end

      def step(count) = (count == 1) ? "*" : "*/#{count}"

      # sidekiq-cron and sidekiq-scheduler pass an Array as the arguments and
      # anything else as the one argument.
      def args(value)
        case value
        when nil then []
        when Array then value
        else [value]
        end
      end
    end
  end
end
