# frozen_string_literal: true

require "yaml"
require_relative "finding"
require_relative "gem_rules"
require_relative "code_rules"
require_relative "schedule_findings"

module Deckhand
  module Migration
    # Scans a Sidekiq application, before anyone deploys, for what runs on
    # Deckhand's drop-in mode as is, what needs a change and what is not
    # supported: the gems in Gemfile.lock, config/sidekiq*.yml, and the Ruby
    # files under app/, lib/, config/, test/ and spec/. It reads files only.
    # `config_file` reads a config file's settings as the `deckhand` command
    # would (CLI::ConfigFile: `normalize(data)`, `known?(key)`); the command
    # that runs the check passes its own, so the check never loads the CLI.
    #
    #   check = Deckhand::Migration::Check.new("/srv/shop", config_file: Deckhand::CLI::ConfigFile)
    #   check.findings.group_by(&:verdict)   # => {works: [...], change: [...], unsupported: [...]}
    class Check
      CODE_DIRS = %w[app lib config test spec jobs workers].freeze
      SCHEDULE_FILES = %w[schedule.yml scheduler.yml sidekiq_scheduler.yml].freeze

      attr_reader :root

      def initialize(root, config_file:)
        @config_file = config_file
        @root = File.expand_path(root)
        raise ConfigError, "migrate --check: #{@root} is not a directory; give the application's root" unless File.directory?(@root)
      end

      def findings = @findings ||= gems + config_files + code

      def unsupported? = findings.any? { |finding| finding.verdict == :unsupported }

      private

      def gems
        lock = File.join(@root, "Gemfile.lock")
        unless File.exist?(lock)
          return [Finding.new(:change, "no Gemfile.lock", [], "run bundle install first so the check can read the gems you use")]
        end
        File.read(lock).scan(/^    ([A-Za-z0-9_.-]+) \(([^)]+)\)$/).filter_map do |name, version|
          verdict, advice = GemRules.verdict(name)
          Finding.new(verdict, "gem #{name} #{version}", ["Gemfile.lock"], advice) if verdict
        end
      end

      def config_files
        Dir[File.join(@root, "config", "{sidekiq*.yml,#{SCHEDULE_FILES.join(",")}}")].sort.uniq.flat_map { |path| config_file(path) }
      end

      def config_file(path)
        where = [relative(path)]
        return ScheduleFindings.file(@root, relative(path), loaded_by: loaded_schedules[relative(path)]) if SCHEDULE_FILES.include?(File.basename(path))
        data = @config_file.normalize(YAML.safe_load_file(path, permitted_classes: [Symbol], aliases: true) || {})
        sections = [data] + data.select { |key, value| environment?(key, value) }.values
        keys = sections.flat_map(&:keys).uniq - data.keys.select { |key| environment?(key, data[key]) }
        unknown = keys.reject { |key| @config_file.known?(key) }
        found = [Finding.new(:works, "Sidekiq's config file, read by `deckhand -C #{relative(path)}`", where, nil)]
        found << Finding.new(:change, "settings Deckhand does not have: #{unknown.join(", ")}", where, "remove them") unless unknown.empty?
        schedules = sections.filter_map { |section| section.dig("periodic", "sidekiq_schedule") if section["periodic"].is_a?(Hash) }
        found + schedules.flat_map { |schedule| ScheduleFindings.section(schedule, relative(path)) }
      rescue Psych::Exception => e
        [Finding.new(:change, "a config file that is not valid YAML (#{e.message})", where, "fix it")]
      end

      # The schedule files the application loads already: relative path =>
      # where (config/deckhand.yml's `periodic: {sidekiq_schedule:}`, or a
      # Ruby file's `load_sidekiq_schedule("...")`).
      def loaded_schedules
        @loaded_schedules ||= schedules_in_deckhand_yml.merge(schedules_in_code) { |_, yml, _| yml }
      end

      def schedules_in_deckhand_yml
        path = File.join(@root, "config", "deckhand.yml")
        return {} unless File.exist?(path)
        data = @config_file.normalize(YAML.safe_load_file(path, permitted_classes: [Symbol], aliases: true) || {})
        sections = [data] + data.values.grep(Hash)
        sections.filter_map { |section| section.dig("periodic", "sidekiq_schedule") if section["periodic"].is_a?(Hash) }
          .grep(String).to_h { |file| [file.delete_prefix("./"), relative(path)] }
      rescue Psych::Exception
        {}
      end

      def schedules_in_code
        ruby_files.each_with_object({}) do |path, found|
          File.read(path).scan(/load_sidekiq_schedule\(\s*["']([^"']+)["']/) { |(file)| found[file.delete_prefix("./")] ||= relative(path) }
        end
      end

      def code
        hits = Hash.new { |hash, rule| hash[rule] = [] }
        ruby_files.each do |path|
          File.foreach(path).with_index(1) do |line, number|
            next if line.lstrip.start_with?("#")
            CodeRules::RULES.each { |rule| hits[rule] << "#{relative(path)}:#{number}" if rule.first.match?(line) }
          end
        end
        hits.map do |(_, verdict, what, advice), places|
          Finding.new(verdict, "#{what}: #{places.size} use#{"s" unless places.size == 1}", places, advice)
        end
      end

      def ruby_files
        CODE_DIRS.flat_map { |dir| Dir[File.join(@root, dir, "**", "*.{rb,rake}")] }.sort
      end

      # A per-environment section (production: {...}), not a setting.
      def environment?(key, value)
        value.is_a?(Hash) && !@config_file.known?(key)
      end

      def relative(path) = path.delete_prefix("#{@root}/")
    end
  end
end
