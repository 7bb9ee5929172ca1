# frozen_string_literal: true

require "csv"

module Conformance
  # What a file of Sidekiq's suite finds when the whole suite runs in one
  # Ruby, as `rake test` runs it, and not when the file runs alone: `csv`
  # loaded (iterable_jobs.rb names CSV; other files require it), the dummy
  # Rails app booted (`rake test` loads every file before running any, and
  # some require test/dummy: current_attributes_test.rb wraps its tests in
  # its reloader) and its in-memory database holding the tables its tests use.
  # Those files create their tables in a `before(:all)` that minitest's
  # spec DSL drops when a plain `before` follows it in the same `describe`.
  #
  #   Conformance::SidekiqSuite.install      # from a preload: tables at test time
  #   Conformance::SidekiqSuite.create_tables(ActiveRecord::Base.connection)
  module SidekiqSuite
    PRODUCT_IDS = (1..10)

    # The tables before the first test, once the test file has booted the
    # dummy app (minitest initializes its plugins after loading the file).
    def self.install
      require "minitest"
      Minitest.extensions << "sidekiq_suite"
      Minitest.define_singleton_method(:plugin_sidekiq_suite_init) do |_options|
        SidekiqSuite.boot_dummy_app if SidekiqSuite.rails_without_app?
        SidekiqSuite.create_tables(ActiveRecord::Base.connection) if SidekiqSuite.dummy_app_booted?
      end
    end

    DUMMY = "test/dummy/config/environment.rb"

    # Rails loaded, no application: a file that ran alone without test/dummy.
    def self.rails_without_app? = defined?(::Rails.application) && ::Rails.application.nil? && File.file?(DUMMY)

    def self.boot_dummy_app = require(File.expand_path(DUMMY))

    def self.dummy_app_booted?
      defined?(::Rails.application) && ::Rails.application&.initialized? && defined?(::ActiveRecord::Base)
    end

    # posts for transaction_aware_client_test.rb; products, ten of them,
    # for the iterable tests, as active_record_enumerator_test.rb leaves it.
    def self.create_tables(db)
      db.create_table(:posts, force: true) do |t|
        t.string :title
        t.date :published_date
      end
      db.create_table(:products, force: true)
      db.execute("INSERT INTO products (id) VALUES #{PRODUCT_IDS.map { |id| "(#{id})" }.join(", ")}")
    end
  end
end
