# frozen_string_literal: true

require_relative "../../support/iterable/iterable_helper"
require "tmpdir"
require "active_record"

# As a Rails 7.2 application's defaults set it: left unset, Active Support
# 7.2 warns whenever any library turns a DateTime into a Time (fugit does,
# for periodic jobs' zones), and this suite treats warnings as errors. Rails
# 8.1 preserves the zone always and deprecates the setting itself.
ActiveSupport.to_time_preserves_timezone = true if ActiveSupport.gem_version < Gem::Version.new("8.1")

# Models of their own on a SQLite file, apart from any other Active Record
# connection the suite holds (test/rails' app).
class IterableRecord < ActiveRecord::Base
  self.abstract_class = true
end

class IterablePost < IterableRecord
  self.table_name = "iterable_posts"
end

# Walks the posts; records each post's title.
class IterablePostsJob
  include Deckhand::IterableJob
  include IterableJobs::Recording

  def build_enumerator(kind, cursor:)
    relation = IterablePost.where(kind: kind)
    active_record_records_enumerator(relation, cursor: cursor, batch_size: 3)
  end

  def each_iteration(post, _kind)
    IterableJobs.pass_gate(post.id)
    IterableJobs.record(IterableJobs::LEDGER, post.id)
  end
end

# The Active Record helpers walk a relation in primary key order and resume
# from the id in the cursor (Sidekiq's cursors).
class IterableActiveRecordTest < Minitest::Test
  include IterableTestSetup
  include Deckhand::IterableJob::Enumerators

  DIR = Dir.mktmpdir("deckhand-iterable-ar")
  Minitest.after_run { FileUtils.rm_rf(DIR) }
  IterableRecord.establish_connection(adapter: "sqlite3", database: File.join(DIR, "posts.sqlite3"), pool: 5)

  def setup
    super
    IterableRecord.connection.create_table(:iterable_posts, force: true) do |t|
      t.string :title
      t.string :kind
    end
    # Inserted out of id order, with another kind between: the walk follows ids.
    [5, 1, 9, 3, 7, 2, 8].each { |id| IterablePost.create!(id: id, title: "post #{id}", kind: "news") }
    IterablePost.create!(id: 4, title: "other", kind: "ads")
  end

  # No SQLite connection outlives a test: a later test that forks (the Sidekiq
  # harness) would inherit it.
  def teardown
    IterableRecord.connection_pool.disconnect!
    super
  end

  def news = IterablePost.where(kind: "news")

  def test_records_in_id_order_from_the_cursor_on
    walk = active_record_records_enumerator(news, cursor: nil, batch_size: 2).map { |post, cursor| [post.id, cursor] }
    assert_equal [1, 2, 3, 5, 7, 8, 9].map { |id| [id, id] }, walk
    assert_equal [5, 7, 8, 9], active_record_records_enumerator(news, cursor: 5, batch_size: 2).map { |_, cursor| cursor }
    assert_equal 7, active_record_records_enumerator(news, cursor: nil).size
  end

  def test_batches_and_relations_carry_their_first_id
    batches = active_record_batches_enumerator(news, cursor: 3, batch_size: 2).map { |batch, cursor| [batch.map(&:id), cursor] }
    assert_equal [[[3, 5], 3], [[7, 8], 7], [[9], 9]], batches
    relations = active_record_relations_enumerator(news, cursor: nil, batch_size: 3).map do |relation, cursor|
      assert_kind_of ActiveRecord::Relation, relation
      [relation.pluck(:id), cursor]
    end
    assert_equal [[[1, 2, 3], 1], [[5, 7, 8], 5], [[9], 9]], relations
  end

  # As Sidekiq yields them: not loaded, so each_iteration's update_all
  # writes its batch without reading it.
  def test_relations_come_unloaded_for_update_all
    walk = active_record_relations_enumerator(news, cursor: 5, batch_size: 2)
    cursors = walk.map do |relation, cursor|
      refute relation.loaded?, "batch at #{cursor} loaded"
      relation.update_all(title: "seen")
      refute relation.loaded?
      cursor
    end
    assert_equal [5, 8], cursors
    assert_equal({"post 1" => [1], "post 2" => [2], "post 3" => [3], "seen" => [5, 7, 8, 9], "other" => [4]},
      IterablePost.order(:id).group_by(&:title).transform_values { |posts| posts.map(&:id) })
  end

  def test_relations_in_descending_order_carry_their_first_id
    walk = active_record_relations_enumerator(news, cursor: 8, batch_size: 3, order: :desc)
    assert_equal [[[8, 7, 5], 8], [[3, 2, 1], 3]], walk.map { |relation, cursor| [relation.ids.sort.reverse, cursor] }
  end

  def test_refuses_what_is_not_a_relation
    error = assert_raises(ArgumentError) { active_record_records_enumerator([IterablePost.first], cursor: nil) }
    assert_match(/take a relation/, error.message)
  end

  def test_a_job_stopped_midway_resumes_at_the_next_id
    jid = IterablePostsJob.perform_async("news")
    IterableJobs.open_gate(3)
    with_server(iterable_config(scheduler_interval: 600)) do
      wait_for(message: "three posts") { IterableJobs.ledger.size == 3 }
      wait_for(message: "the job at post 5") { IterableJobs.waiting == 5 }
      Deckhand::Lifecycle.stopping!
      IterableJobs.open_gate(5)
      wait_for(message: "the job to be put back") { redis.call("ZCARD", "schedule") == 1 }
    end
    assert_equal [1, 2, 3, 5], IterableJobs.ledger
    assert_equal "7", state(jid)["c"], "the id of the next post"

    Deckhand::Lifecycle.reset!
    IterableJobs.open_gate(100)
    with_server(iterable_config) { wait_for(message: "the job to complete") { IterableJobs.callbacks.include?("complete") } }
    assert_equal [1, 2, 3, 5, 7, 8, 9], IterableJobs.ledger
  end
end
