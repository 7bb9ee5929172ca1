# frozen_string_literal: true

# Runs in a drop-in child (test/dropin/push_errors_test.rb starts it, with
# REDIS_URL pointing at a proxy that cuts the connection at the third
# LPUSH): a push that fails raises redis-client's error, as Sidekiq's client
# does, which `rescue Deckhand::...` catches too, and a bulk push's error
# says which jobs are queued.
require "minitest/autorun"
require "sidekiq"
require "sidekiq/api"

class PushErrorsJob
  include Sidekiq::Job

  def perform(*) = nil
end

class PushErrorsInsideTest < Minitest::Test
  def test_a_bulk_push_cut_partway_raises_redis_clients_error_telling_what_is_queued
    args = Array.new(5_000) { |i| [i] }
    error = assert_raises(RedisClient::ConnectionError) { Sidekiq::Client.push_bulk("class" => PushErrorsJob, "args" => args) }
    assert_kind_of Deckhand::PushIncomplete, error
    assert_kind_of Deckhand::ConnectionError, error.deckhand_error
    assert error.transient?
    caught = begin
      raise error
    rescue Deckhand::ConnectionError => e # as Deckhand code rescues it
      e
    end
    assert_same error, caught
    queued = Sidekiq::Queue.new.map(&:jid).reverse
    assert_equal queued, error.pushed
    assert_equal 2_000, queued.size
    assert_equal args.drop(2_000), error.unpushed_args
    PushErrorsJob.perform_bulk(error.unpushed_args)
    assert_equal (0...5_000).to_a, Sidekiq::Queue.new.map { |job| job.args.first }.sort, "every job once"
  end
end
