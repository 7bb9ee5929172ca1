# frozen_string_literal: true

require "test_helper"

# The two layouts answer the same questions: every method and constant of one
# is in the other, but for the differences each mode documents. Code that runs
# in both modes can then never call what one of them lacks.
class LayoutTest < Minitest::Test
  Plain = Deckhand::Store::Layout::Plain
  Cluster = Deckhand::Store::Layout::Cluster

  def setup = nil # no Redis needed

  def methods_of(layout) = layout.singleton_methods.sort

  def test_both_layouts_answer_the_same_questions
    assert_equal methods_of(Plain), methods_of(Cluster) - %i[tag valid_name candidate], "only the cluster layout names hash tags"
    assert_equal Plain.constants.sort - %i[SCHEDULE RETRY DEAD], Cluster.constants.sort - %i[FLEET TAG_BRACES PLACEMENT PLACEMENT_EPOCH PLACEMENT_MOVES PLACEMENT_RETIRED PLACEMENT_LOCK Names],
      "the cluster layout shards the scheduled, retry and dead sets per queue: it has no single one"
  end

  def test_both_batch_layouts_answer_the_same_questions
    plain, cluster = Deckhand::Store::Layout::PlainBatches, Deckhand::Store::Layout::ClusterBatches
    assert_equal methods_of(plain), methods_of(cluster) - %i[pushed], "only the cluster layout has an outbox"
    assert_equal plain.constants.sort, cluster.constants.sort - %i[TAG OUTBOX OUTBOX_JOBS]
    assert_same plain, Plain.batches
    assert_same cluster, Cluster.batches
    refute plain.outbox?
    assert cluster.outbox?
  end

  # Workflows push released steps to their queues in the script that
  # releases them in plain mode; in cluster mode every workflow key shares
  # the {workflows} slot and released steps go to its outbox.
  def test_both_workflow_layouts_answer_the_same_questions_and_cluster_mode_keeps_a_workflow_in_one_slot
    plain, cluster = Deckhand::Store::Layout::PlainWorkflows, Deckhand::Store::Layout::ClusterWorkflows
    assert_same plain, Plain.workflows
    assert_same cluster, Cluster.workflows
    assert_equal methods_of(plain), methods_of(cluster) - %i[pushed], "only the cluster layout has an outbox"
    assert_equal plain.constants.sort, cluster.constants.sort - %i[TAG OUTBOX OUTBOX_JOBS]
    assert_equal "deckhand:workflow:w1:state", plain.state("w1")
    assert_equal ["deckhand:workflow:w1", *plain::PARTS.map { |part| "deckhand:workflow:w1:#{part}" }], plain.all("w1")
    assert_equal "{workflows}:workflow:w1:state", cluster.state("w1")
    tagged = [*cluster.all("w1"), cluster::INDEX, cluster::EXPIRIES, cluster::COUNTS, cluster::OUTBOX, cluster::OUTBOX_JOBS]
    assert tagged.all? { |key| key.start_with?("{workflows}:") }, "every key a workflow script touches in one slot"
    assert_equal "{queue:mail}:workflow-released", cluster.pushed("{queue:mail}")
    refute plain.outbox?
    assert cluster.outbox?
  end

  # A cluster store's layout: the same names and constants, each queue's tag
  # from its placement (no Redis here: the placement is a stand-in that
  # answers from a hash).
  def test_a_placed_layout_answers_what_the_cluster_layout_does_with_the_placed_tags
    placement = Struct.new(:known) do
      def tag(queue) = known.fetch(queue)

      def tags(queues) = queues.each { |queue| tag(queue) } && nil
    end.new({"mail" => "{queue~2:mail}", "a" => "{queue:a}"})
    placed = Deckhand::Store::Layout::PlacedCluster.new(placement)
    assert_empty (methods_of(Cluster) - %i[valid_name candidate]).reject { |name| placed.respond_to?(name) }
    assert_equal Cluster::QUEUES, placed::QUEUES
    assert_equal "{deckhand}:placement", placed::PLACEMENT
    assert_equal ["{queue~2:mail}", "{queue~2:mail}:retry", "{queue~2:mail}:inflight:h:1:a", "{queue~2:mail}:unique:ff"],
      [placed.queue("mail"), placed.retry_set("mail"), placed.inflight("h:1:a", "mail"), placed.unique_lock("mail", "ff")]
    assert_equal [["a", "{queue:a}:dead"], ["mail", "{queue~2:mail}:dead"]], placed.set_keys(:dead_set, %w[mail a])
    assert_equal %w[{queue:mail} {queue~1:mail} {queue~2:mail}], (0..2).map { |n| Cluster.candidate("mail", n) }
  end

  def test_the_plain_layout_is_sidekiqs
    assert_equal ["queue:mail", "schedule", "retry", "dead", "queues", "processes", "stat:processed:2026-11-24"],
      [Plain.queue("mail"), Plain.scheduled_set("mail"), Plain.retry_set("mail"), Plain.dead_set("mail"),
        Plain::QUEUES, Plain::PROCESSES, Plain.daily(Plain::PROCESSED, "2026-11-24")]
  end

  def test_sets_and_calls_follow_the_slots
    assert Plain.plain?
    refute Cluster.plain?
    assert_equal [[nil, "retry"]], Plain.set_keys(:retry_set, %w[b a])
    assert_equal [["a", "{queue:a}:retry"], ["b", "{queue:b}:retry"]], Cluster.set_keys(:retry_set, %w[b a])
    assert_equal [[0, 1, 2]], Plain.script_calls([2], [0, 1, 2]), "one call covers every queue"
    assert_equal [[0], [2]], Cluster.script_calls([2, 0], [0, 1, 2]), "one call per queue worked on"
    assert_equal Deckhand::Store::Scripts::Fetch, Plain.fetch_script
    assert_equal Deckhand::Store::Scripts::FetchByQueue, Cluster.fetch_script
  end

  def test_a_queue_name_that_cannot_be_a_hash_tag_is_refused_with_the_fix
    error = assert_raises(Deckhand::ConfigError) { Cluster.queue("a{b}") }
    assert_match(/cannot be used in cluster mode.*Rename the queue/, error.message)
  end
end
