# frozen_string_literal: true

require "test_helper"

class ClassLookupTest < Minitest::Test
  def lookup_error(name)
    assert_raises(Deckhand::UnknownJobClass) { Deckhand::Server::ClassLookup.new(cache: true).job_class(name) }
  end

  # Ruby 3.1's error_highlight writes the source line that looked the
  # constant up into NameError#message; none of it may reach the job's error.
  def test_an_unknown_class_is_named_with_the_fix_and_no_source_code
    message = lookup_error("NoSuchReceiptJob").message
    assert_equal "NoSuchReceiptJob is not a class this process knows: is it loaded (deckhand -r)? " \
      "During a deploy, old processes may see new jobs: it will be retried", message
    refute_match(/const_get|synchronize|\^\^|\n/, message)
  end

  def test_a_missing_namespace_is_named
    message = lookup_error("NoSuchBilling::Receipt").message
    assert_includes message, "NoSuchBilling::Receipt is not a class this process knows: is it loaded (deckhand -r)? (NoSuchBilling is not defined)"
    assert_match(/\ADeckhand::Job::Gone is not a class this process knows: is it loaded \(deckhand -r\)\? During/,
      lookup_error("Deckhand::Job::Gone").message, "a namespace that exists is not named")
  end

  def test_the_name_and_the_hint_come_first_so_a_list_cut_short_shows_them
    message = lookup_error("Billing2::Statements::MonthlyStatementDelivery").message
    assert_includes message[0, 140], "is it loaded (deckhand -r)?"
  end
end
