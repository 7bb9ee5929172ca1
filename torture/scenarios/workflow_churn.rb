# frozen_string_literal: true

require_relative "../support/driver_redis"

module Torture
  # 20. Workflows under SIGKILL churn: 200 workflows of 50 steps of 20-400
  # ms (quick 60 of 25, 20-200 ms), each steps in levels of 5, every step
  # after one to three steps of the level above, on 3 servers × 10
  # threads; one server SIGKILLed every 3 s (quick 1 s) and another
  # started. Every step runs, none before
  # its parents finished; a step runs twice only when the process running
  # it first was killed (at-least-once, counted as `reruns_after_kill`);
  # every workflow ends. One step in GROWS adds two to four steps to its
  # workflow as it runs, grafted: they run once each (a kill between the
  # add and the step's end adds nothing twice), and the steps after it
  # start only once they finished. A step quarantined as a poison pill (caught
  # running at three kills) dies, and the steps after it are cancelled:
  # each is accounted for, none lost.
  class WorkflowChurn < Scenario
    NUMBER = 20
    NAME = "workflow-churn"
    PROCESSES = 3
    CONCURRENCY = 10
    WIDTH = 5
    # One step in GROWS adds steps as it runs.
    GROWS = 6
    APP = File.expand_path("../workflow_app.rb", __dir__)

    def run
      require APP
      workflows, steps = size([200, 50], [60, 25])
      @longest = size(400, 200)
      fleet_url, options, redis = start_system
      @reads_config = Deckhand::Config.new(redis: options)
      fleet = new_fleet(fleet_url, settings: timing.merge(app: APP))
      PROCESSES.times { fleet.spawn(concurrency: CONCURRENCY, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      random = Random.new(workflows * steps)
      config = Deckhand::Workflow.install(Deckhand::Config.new(redis: options))
      @parents = {}
      @grafts = {}
      @ids = Array.new(workflows) { push_workflow(config, steps, random) }
      churn(fleet, redis, jobs: @parents.size, every: size(3.0, 1.0), random: random, processes: PROCESSES, timeout: size(900, 180))
      figures(config, fleet, redis, @parents.size)
    end

    private

    # The Redis under test: the URL the fleet gets, the driver's
    # configuration's redis options, and the connection its reads go through.
    def start_system
      server = start_redis
      [server.url, {url: server.url}, Torture.redis(server.url)]
    end

    def queue_key = "queue:default"

    # What the scenario's mode adds to its figures, and checks.
    def more_figures(_redis) = {}

    def push_workflow(config, steps, random)
      flow = Deckhand::Workflow.new("torture", config: config)
      above = []
      before = @parents.size
      (0...steps).each_slice(WIDTH) do |level|
        refs = level.map do
          after = above.sample(random.rand(1..3), random: random)
          ms = random.rand(20..@longest)
          grow = (random.rand(GROWS).zero? ? random.rand(2..4) : 0)
          ref = flow.add(StepJob, ms, grow, after: after.empty? ? nil : after)
          @parents[ref.jid] = after.flat_map { |parent| [parent.jid, *@grafts[parent.jid]] }
          graft(flow.id, ref.jid, grow)
          ref
        end
        above = refs
      end
      flow.push
      @ledger.enqueued(@parents.keys.drop(before))
      (@planned ||= {})[flow.id] = @parents.keys.drop(before)
      flow.id
    end

    # The steps `adder` will add, by the jids its adds derive: each waits
    # for nothing, and the steps after the adder wait for them too.
    def graft(wid, adder, grow)
      return if grow.zero?
      @grafts[adder] = (1..grow).map { |n| Deckhand::Workflow::Extension.jid(wid, adder, n) }
      @grafts[adder].each { |jid| @parents[jid] = [] }
    end

    # Poison pills, the steps cancelled after them, and the steps a step
    # that died or was cancelled so never added: accounted for.
    def poison_pills(redis)
      pills = super
      return pills if pills.empty?
      steps = @ids.map { |id| Deckhand::Workflow.steps(id, config: @reads_config) }
      cancelled = steps.flat_map { |found| found.select { |_, step| step["state"] == "c" }.keys }
      @cancelled = cancelled.size
      @ungrown = steps.flat_map do |found|
        found.select { |jid, step| @grafts.key?(jid) && %w[c d].include?(step["state"]) }.flat_map { |jid, _| @grafts[jid] - found.keys }
      end
      pills + cancelled + @ungrown
    end

    def figures(config, fleet, redis, total)
      books = @ledger.analysis(kills: fleet.kills)
      starts = @ledger.starts
      finishes = @ledger.finishes
      killed = fleet.kills.to_h { |pid, at| [pid, at] }
      reruns, doubled = reruns(starts, killed)
      early = early_starts(starts, finishes)
      statuses = @ids.map { |id| Deckhand::Workflow.status(id, config: config) }
      unended = statuses.count { |status| !%w[succeeded failed].include?(status["state"]) || status["open"] != "0" }
      miscounted = statuses.count { |status| %w[succeeded dead cancelled].sum { |k| status[k].to_i } + status["failed"].to_i != status["total"].to_i }
      # A step added twice (a rerun's add under other jids) grows its workflow past the steps planned;
      # one missing was lost, unless its adder never added it (@ungrown).
      overgrown = @ids.zip(statuses).count { |id, status| status["total"].to_i != (@planned[id] - @ungrown.to_a).size }
      growers_rerun = starts.group_by(&:jid).count { |jid, runs| @grafts.key?(jid) && runs.size > 1 }
      left = redis.call("LLEN", queue_key)
      inflight = leftovers(redis)
      check(inflight.zero?, "#{inflight} in-flight records left")
      check(books[:lost].zero?, "#{books[:lost]} steps lost")
      check(doubled.zero?, "#{doubled} steps run twice without a kill")
      check(early.zero?, "#{early} steps started before a parent finished")
      check(unended.zero?, "#{unended} workflows never ended")
      check(miscounted.zero?, "#{miscounted} workflows' counts do not add up")
      check(overgrown.zero?, "#{overgrown} workflows hold more or fewer steps than planned")
      check(left.zero?, "#{left} jobs left in the queue")
      {
        "workflows" => @ids.size, "steps" => total, "grafted" => @grafts.values.sum(&:size), "ungrown" => @ungrown.to_a.size, "overgrown" => overgrown,
        "growers_rerun" => growers_rerun, "processes" => PROCESSES, "kills" => fleet.kills.size,
        "lost" => books[:lost], "reruns_after_kill" => reruns, "doubled" => doubled, "early" => early,
        "unended" => unended, "failed_workflows" => statuses.count { |s| s["state"] == "failed" },
        "quarantined" => redis.call("ZCARD", dead_key), "cancelled_after_pills" => @cancelled.to_i,
        "left_in_queue" => left, "leftover_inflight" => inflight, **more_figures(redis), "boot_wait" => secs(@boot_wait)
      }
    end

    # Of the steps started more than once: [how many, those whose earlier
    # start's process was not killed after it].
    def reruns(starts, killed)
      twice = starts.group_by(&:jid).select { |_, runs| runs.size > 1 }
      doubled = twice.count do |_, runs|
        runs.sort_by(&:at)[0..-2].any? { |run| !(killed[run.pid] && killed[run.pid] >= run.at) }
      end
      [twice.size, doubled]
    end

    # Steps whose first start came before one of their parents' first finish.
    def early_starts(starts, finishes)
      first_start = starts.group_by(&:jid).transform_values { |runs| runs.map(&:at).min }
      first_finish = finishes.group_by(&:jid).transform_values { |runs| runs.map(&:at).min }
      first_start.count do |jid, at|
        (@parents[jid] || []).any? { |parent| first_finish[parent].nil? || first_finish[parent] > at }
      end
    end
  end
end
