# frozen_string_literal: true

require "securerandom"
require_relative "../support/driver_redis"

module Torture
  # 6. Thousands of malformed entries pushed straight into a queue, mixed with
  # valid jobs. No server may crash; every malformed entry must reach the dead
  # set with its raw bytes; every valid job must run.
  class BadData < Scenario
    NUMBER = 6
    NAME = "bad-data"

    def run
      n = size(1_000, 200)
      redis_server = start_redis
      redis = Torture.redis(redis_server.url)
      fleet = new_fleet(redis_server.url)
      2.times { fleet.spawn(concurrency: 10, wait: false) }
      fleet.alive.each { |m| fleet.ready(m) }
      bad = malformed(n)
      odd = {unknown: Array.new(n / 5) { job("NoSuchJobClass", []) },
             json_class: Array.new(n / 5) { job("Torture::ProbeJob", [{"json_class" => "Deckhand::Config", "v" => 1}], "json_class" => "Deckhand::Config") }}
      @ledger.enqueued(odd[:json_class].map { |raw| JSON.parse(raw)["jid"] })
      valid = push_mixed(redis, client(redis_server.url), (bad + odd.values.flatten).shuffle(random: Random.new(n)), n)
      settled = wait_until(size(300, 90), step: 0.2) do
        redis.call("ZCARD", "dead") >= bad.size && redis.call("ZCARD", "retry") >= odd[:unknown].size && @ledger.missing.empty?
      end
      check(settled, "entries still unsettled after the timeout")
      figures(redis, bad, odd, valid, fleet.exited.size)
    end

    private

    def job(klass, args, extra = {})
      JSON.generate({"class" => klass, "args" => args, "jid" => SecureRandom.hex(12), "queue" => "default", "retry" => true}.merge(extra))
    end

    def malformed(n)
      nested = "[" * 10_000 + "]" * 10_000
      Array.new(n) { "\xFF\xFE".b + job("Torture::WorkJob", [0]).b } +
        Array.new(n) { (text = job("Torture::WorkJob", [0]))[0, text.size / 2] } +
        Array.new(n) { job("Torture::WorkJob", "not an array") } +
        Array.new(n / 5) { %({"class":"Torture::WorkJob","jid":"#{SecureRandom.hex(12)}","args":#{nested}}) } +
        Array.new(size(3, 2)) { "x" * (5 * 1024 * 1024) }
    end

    # Raw entries in slices, with a valid job pushed after each; returns the
    # number of valid jobs.
    def push_mixed(redis, client, entries, n)
      slices = entries.each_slice([entries.size / n, 1].max).to_a
      slices.each do |slice|
        redis.call("LPUSH", "queue:default", *slice)
        push_work(client, [0])
      end
      slices.size
    end

    def figures(redis, bad, odd, valid, crashed)
      pushed = bad.to_h { |raw| [raw.b, true] }
      raw_kept = redis.call("ZRANGE", "dead", 0, -1).count do |entry|
        raw = JSON.parse(entry)["raw"]
        raw && pushed[raw.unpack1("m0")]
      end
      probes = @ledger.probes
      lost = @ledger.missing.size
      check(crashed.zero?, "#{crashed} server processes died")
      check(raw_kept == bad.size, "#{bad.size - raw_kept} malformed entries not in the dead set byte for byte")
      check(lost.zero?, "#{lost} valid jobs did not run")
      check(probes.size == odd[:json_class].size && probes.uniq == ["Hash"], "json_class built objects: #{probes.uniq}")
      {
        "malformed" => bad.size, "dead_with_raw_bytes" => raw_kept, "unknown_class" => odd[:unknown].size,
        "unknown_in_retry" => redis.call("ZCARD", "retry"), "json_class_ran_with_plain_hashes" => probes.count("Hash"),
        "valid_run" => "#{valid + probes.size - lost}/#{valid + odd[:json_class].size}", "server_crashes" => crashed
      }
    end
  end
end
