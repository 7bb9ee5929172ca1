# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/transactional_push_test.rb starts it):
# Sidekiq.default_job_options as a Hash changed in place, and
# Sidekiq.transactional_push! with a job class's client_class, as in Sidekiq 7.3.
require "minitest/autorun"
require "json"
require "sidekiq"
require "sidekiq/api"
require "sidekiq/transaction_aware_client"
require "active_record"

# This child's RubyGems knows no gem (its GEM_HOME is empty, so that no
# sidekiq gem can be found); Active Record's sqlite3 adapter asks RubyGems for
# sqlite3 before requiring it from the load path, where it is.
class Object
  private def gem(name, *requirements) = (name == "sqlite3") || super
end

require "activerecord-jdbcsqlite3-adapter" if RUBY_ENGINE == "jruby" # its "sqlite3" adapter: the sqlite3 gem is a C extension

ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")

class TxPlainJob
  include Sidekiq::Job

  def perform(*) = nil
end

class TxAtOnceJob
  include Sidekiq::Job

  sidekiq_options client_class: Sidekiq::Client, queue: "at_once"

  def perform(*) = nil
end

class TxAlwaysDeferredJob
  include Sidekiq::Job

  sidekiq_options client_class: Sidekiq::TransactionAwareClient

  def perform(*) = nil
end

class TxSubJob < TxAtOnceJob
end

# A plain Deckhand job in the same process: Sidekiq's switch is not its.
class TxDeckhandJob
  include Deckhand::Job

  def perform(*) = nil
end

class TransactionalPushInsideTest < Minitest::Test
  def setup
    Sidekiq.redis { |conn| conn.call("FLUSHDB") }
  end

  def teardown
    Sidekiq.default_job_options.replace("retry" => true, "queue" => "default")
  end

  def queued(queue = "default") = Sidekiq::Queue.new(queue).map(&:args).reverse

  def test_default_job_options_change_in_place_and_every_push_sees_it
    options = Sidekiq.default_job_options
    assert_kind_of Hash, options
    refute_predicate options, :frozen?
    options["backtrace"] = 4
    assert_same options, Sidekiq.default_job_options
    assert_equal 4, TxPlainJob.get_sidekiq_options["backtrace"]
    TxPlainJob.perform_async(1)
    Sidekiq::Client.push("class" => "ElsewhereJob", "args" => [2])
    assert_equal 4, options.delete("backtrace")
    TxPlainJob.perform_async(3)
    assert_equal [[1, 4], [2, 4], [3, nil]], Sidekiq::Queue.new.map { |job| job.item.values_at("args", "backtrace").flatten }.reverse
    Sidekiq.default_job_options = {retry: 2}
    assert_equal({"retry" => 2, "queue" => "default"}, Sidekiq.default_job_options)
    assert_same options, Sidekiq.default_job_options
    assert_equal 2, TxDeckhandJob.deckhand_options["retry"], "Deckhand's classes start from the same defaults"
  end

  def test_transactional_push_waits_for_the_commit_unless_the_class_opts_out
    assert Sidekiq.transactional_push!
    assert_equal Sidekiq::TransactionAwareClient, TxPlainJob.get_sidekiq_options["client_class"]
    assert_equal Sidekiq::Client, TxSubJob.get_sidekiq_options["client_class"], "inherited from its superclass"
    ActiveRecord::Base.transaction do
      TxPlainJob.perform_async("kept")
      TxPlainJob.set(queue: "default").perform_in(0, "kept too")
      TxAtOnceJob.perform_async("at once")
      TxSubJob.perform_async("sub at once")
      TxDeckhandJob.perform_async("deckhand's")
      assert_equal [["deckhand's"]], queued
      assert_equal [["at once"], ["sub at once"]], queued("at_once"), "opted out: pushed inside the transaction"
    end
    assert_equal [["deckhand's"], ["kept"], ["kept too"]], queued
    ActiveRecord::Base.transaction do
      jid = TxPlainJob.perform_async("rolled back")
      assert_match(/\A\h{24}\z/, jid, "the jid at once, for the transaction to store")
      TxAtOnceJob.perform_async("pushed anyway")
      raise ActiveRecord::Rollback
    end
    assert_equal 3, Sidekiq::Queue.new.size
    assert_equal [["at once"], ["sub at once"], ["pushed anyway"]], queued("at_once")
    jobs = Sidekiq::Queue.new.to_a + Sidekiq::Queue.new("at_once").to_a
    assert(jobs.none? { |job| job.item.key?("client_class") }, "how a job was pushed is not stored in it")
  end

  def test_the_switch_comes_off_with_its_key
    Sidekiq.transactional_push!
    Sidekiq.default_job_options.delete("client_class")
    assert_nil TxPlainJob.get_sidekiq_options["client_class"]
    ActiveRecord::Base.transaction do
      TxPlainJob.perform_async("at once")
      raise ActiveRecord::Rollback
    end
    assert_equal [["at once"]], queued
  end

  def test_a_class_may_opt_in_alone
    ActiveRecord::Base.transaction do
      TxAlwaysDeferredJob.perform_async("deferred")
      TxAlwaysDeferredJob.client_push("args" => ["client_push deferred"])
      TxPlainJob.perform_async("plain")
      assert_equal [["plain"]], queued
      raise ActiveRecord::Rollback
    end
    assert_equal [["plain"]], queued
    ActiveRecord::Base.transaction do
      TxAlwaysDeferredJob.perform_in(3600, "later")
      assert_equal 0, Sidekiq::ScheduledSet.new.size
    end
    assert_equal [["later"]], Sidekiq::ScheduledSet.new.map(&:args)
    ActiveRecord::Base.transaction do
      TxAlwaysDeferredJob.perform_bulk([["bulk 1"], ["bulk 2"]])
      assert_equal [["plain"], ["bulk 1"], ["bulk 2"]], queued, "a bulk push goes at once, as in Sidekiq"
    end
  end
end
