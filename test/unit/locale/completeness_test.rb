# frozen_string_literal: true

require "test_helper"
require "deckhand/web"
require "deckhand/cli/top/frame"
require "deckhand/cli/top/view_state"

# Every language has exactly English's texts, with the same %{variables}
# and the plural forms its rule names; and the screens converted to the
# lookup (the layout with its header, search and live counters, the
# dashboard, the notices after an action; deckhand top) use only texts
# English has, while every English text is used by one of them.
class LocaleCompletenessTest < Minitest::Test
  LANGUAGES = %w[ar de en es fr he ja pt ru zh-CN].freeze
  ENGLISH = Deckhand::Locale.read("en")
  VARIABLE = Deckhand::Locale::Catalog::VARIABLE
  ROOT = File.expand_path("../../..", __dir__)
  # The converted screens: their templates and the Ruby that builds their words.
  CONVERTED = %w[views/layout.erb views/_find.erb views/_live_bar.erb views/_shards.erb views/_locale_picker.erb
    views/_pager.erb views/dashboard.erb action.rb
    views/queues.erb views/queue.erb views/_throttle.erb views/_queue_state.erb views/_holders.erb
    helpers/queue_state.rb helpers/holders.rb helpers/format.rb pages/queues_page.rb
    views/busy.erb views/_balance.erb views/_iteration_runs.erb pages/busy_page.rb
    views/job_set.erb views/job_set_confirm.erb views/_retry_warning.erb views/gone.erb views/_stuck_queues.erb
    helpers/set_words.rb pages/job_sets_page.rb views/job.erb views/_unique_lock.erb views/_collapse.erb
    views/job_set_groups.erb views/find.erb pages/find_page.rb views/unreachable.erb pages/unreachable_page.rb views/profiles.erb
    views/limits.erb views/metrics.erb views/metric.erb pages/metrics_page.rb
    views/periodic.erb helpers/tick_outcome.rb helpers/cron_words.rb pages/periodic_page.rb
    views/batches.erb views/batch.erb helpers/progress.rb pages/batches_page.rb
    views/workflows.erb views/workflow.erb helpers/step_graph.rb pages/workflows_page.rb].map { |file| File.join(ROOT, "lib/deckhand/web", file) }.freeze
  # deckhand top: every file of it, the command's too.
  TOP = Dir[File.join(ROOT, "lib/deckhand/cli/top{,_command}{.rb,/**/*.rb}")].sort.freeze
  # Keys the converted code builds from a name: nav.<section>, stats.<field>,
  # notice.<name>, runs.<why an iteration stopped>, the sets' words per set,
  # the confirmation's per action, a workflow's or step's state and a step's
  # condition; top's actions, keys, sets, confirmations and limits' sources.
  BUILT = {
    "nav" => %w[dashboard busy queues retries scheduled dead batches workflows periodic metrics limits profiles],
    "stats" => %w[processed failed busy enqueued retries scheduled dead processes expired succeeded],
    "notice" => Deckhand::Web::Action::NOTICES + Deckhand::Web::Pages::PeriodicPage::NOTICES + Deckhand::Web::Pages::WorkflowsPage::NOTICES,
    "ticks" => Deckhand::Web::Helpers::TickOutcome::STATES,
    "cron" => (0..6).map { |day| "day_#{day}" },
    "runs" => %w[shutdown time_budget error],
    "sets" => %w[retries scheduled dead].flat_map { |set| %W[entries_#{set} in_#{set} when_#{set} empty_#{set}] },
    "gone" => %w[left_retries left_scheduled left_dead],
    "confirm" => %w[retry delete kill],
    "workflows" => (%w[held] | Deckhand::API::StepRecord::STATES.values).map { |state| "state_#{state}" } +
      Deckhand::API::StepRecord::CONDITIONS.values.map { |on| "when_#{on}" },
    "top.actions" => [Deckhand::CLI::Top::BusyTab, Deckhand::CLI::Top::QueuesTab, Deckhand::CLI::Top::SetTab,
      Deckhand::CLI::Top::PeriodicTab, Deckhand::CLI::Top::LimitsTab].flat_map { |tab| tab::ACTIONS.values }.uniq.map(&:to_s),
    "top.keys" => Deckhand::CLI::Top::Frame::KEYS.values,
    "top.help" => Deckhand::CLI::Top::Frame::HELP.values,
    "top.sets" => %w[retries scheduled dead] + Deckhand::CLI::Top::SetTab::CONFIRM.map { |action| "confirm_#{action}" },
    "top.busy" => Deckhand::CLI::Top::BusyTab::CONFIRM.map { |action| "confirm_#{action}" },
    "top.limits" => %w[runtime servers local]
  }.freeze
  # Read by Locale::Catalog and Locale::Formats themselves.
  FORMAT_KEYS = %w[language dir number.delimiter number.separator number.percent time.format time.ago time.from_now
    duration.s duration.min duration.h duration.d duration.pair].freeze

  def test_the_ten_languages_are_there
    assert_equal LANGUAGES, Deckhand::Locale.names
  end

  def test_every_language_has_exactly_the_keys_english_has
    LANGUAGES.each do |code|
      texts = Deckhand::Locale.read(code)
      assert_empty ENGLISH.keys - texts.keys, "#{code} lacks these keys English has"
      assert_empty texts.keys - ENGLISH.keys, "#{code} has keys English lacks"
    end
  end

  def test_every_text_has_englishs_variables
    LANGUAGES.each do |code|
      Deckhand::Locale.read(code).each do |key, value|
        english = ENGLISH[key]
        if english.is_a?(Hash)
          assert_kind_of Hash, value, "#{code} #{key} should be a plural text"
          # A form for one number alone (Arabic's "one", Hebrew's "two") may spell it out.
          value.each { |form, text| assert_empty variables(text) - variables(english["other"]), "#{code} #{key}.#{form}" }
          assert_equal variables(english["other"]), variables(value["other"]), "#{code} #{key}.other"
        else
          assert_kind_of String, value, "#{code} #{key}"
          assert_equal variables(english), variables(value), "#{code} #{key}"
        end
      end
    end
  end

  def test_plural_texts_have_the_forms_of_their_language
    LANGUAGES.each do |code|
      Deckhand::Locale.read(code).each do |key, value|
        next unless value.is_a?(Hash)
        assert_equal Deckhand::Locale::Plurals.categories(code).sort, value.keys.sort, "#{code} #{key}"
        value.each_value { |text| refute_empty text.strip, "#{code} #{key}" }
      end
    end
  end

  def test_no_text_is_empty_and_the_direction_is_one_of_two
    LANGUAGES.each do |code|
      Deckhand::Locale.read(code).each { |key, value| refute_empty value.to_s.strip, "#{code} #{key}" unless value.is_a?(Hash) }
      assert_includes %w[ltr rtl], Deckhand::Locale[code].text("dir")
    end
    assert_equal %w[ar he], LANGUAGES.select { |code| Deckhand::Locale[code].rtl? }
  end

  def test_the_converted_screens_use_only_keys_english_has
    assert_includes TOP, File.join(ROOT, "lib/deckhand/cli/top/tabs/busy_tab.rb")
    used = literal_keys
    refute_empty used
    assert_empty used - ENGLISH.keys, "t(...) names a key en.yml lacks"
    BUILT.each { |prefix, names| names.each { |name| assert ENGLISH.key?("#{prefix}.#{name}"), "#{prefix}.#{name}" } }
  end

  def test_every_english_key_is_used
    used = literal_keys + BUILT.flat_map { |prefix, names| names.map { |name| "#{prefix}.#{name}" } } + FORMAT_KEYS
    assert_empty ENGLISH.keys - used, "en.yml keys no converted screen uses: drop them, or convert their screen"
  end

  private

  def variables(text) = text.scan(VARIABLE).flatten.sort

  def literal_keys
    (CONVERTED + TOP).flat_map { |file| File.read(file).scan(/\b(?:t|text)\("([a-z0-9_.]+)"/).flatten }.uniq
  end
end
