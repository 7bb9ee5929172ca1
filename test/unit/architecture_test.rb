# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "deckhand/api"
require "deckhand/batch"
require_relative "../support/architecture_checks"

# One door to Redis: every Redis call is made in the store layer, every Lua
# script has the one Ruby class that owns its KEYS and ARGV, and every key a
# script touches arrives in KEYS. Layers: none names what lies above it, and
# no file of lib/ loads what loads it back. Each check is also run on a broken example,
# so it is known to fail when it should.
class ArchitectureTest < Minitest::Test
  Checks = Deckhand::ArchitectureChecks
  ROOT = File.expand_path("../..", __dir__)

  # The store layer: the one place that talks to Redis.
  STORE = ["lib/deckhand/store.rb", "lib/deckhand/store/"].freeze

  # Still talking to Redis directly, for its own reason: the development Redis
  # (and the development cluster, which assembles its nodes) probes a server
  # before any Store exists. Remove an entry as soon as it is
  # no longer needed (the last test says when).
  REDIS_ALLOWED = ["lib/deckhand/dev_redis.rb", "lib/deckhand/dev_redis/local_cluster.rb"].freeze

  def lib_files = Dir[File.join(ROOT, "lib/**/*.rb")].map { |path| path.delete_prefix("#{ROOT}/") }.sort

  def lua_files = Dir[File.join(Deckhand::Store::Script::DIR, "*/*.lua")].reject { |path| path.start_with?(File.join(Deckhand::Store::Script::DIR, "lib/")) }.sort

  # The scripts and the shared functions put in front of them (scripts/lib/).
  def all_lua = Dir[File.join(Deckhand::Store::Script::DIR, "**/*.lua")].sort

  def under?(path, prefixes) = prefixes.any? { |prefix| prefix.end_with?("/") ? path.start_with?(prefix) : path == prefix }

  def wrappers
    Dir[File.join(Deckhand::Store::Script::DIR, "*/*.rb")].each { |path| require path }
    ObjectSpace.each_object(Class).select { |klass| klass < Deckhand::Store::Script } # subclasses of subclasses too
  end

  def test_no_file_outside_the_store_issues_redis_commands
    offenders = lib_files.reject { |path| under?(path, STORE + REDIS_ALLOWED) }.flat_map do |path|
      Checks.redis_calls(File.read(File.join(ROOT, path))).map { |number, line| "#{path}:#{number}: #{line}" }
    end
    assert_empty offenders, "Redis calls outside lib/deckhand/store/: move them into a store module"
  end

  def test_the_redis_check_finds_commands_pipelines_and_the_client_but_not_comments
    broken = <<~RUBY
      # store.call("GET", "in a comment") is fine
      size = store.call("LLEN", "queue:a")
      store.pipelined { |pipe| pipe.call("GET", "k") }
      store.multi { |tx| tx.call('DEL', "k") }
      conn.blocking_call(2, "BLMOVE", "a", "b", "RIGHT", "LEFT", 2)
      store.evalsha(script, [], [])
      rescue RedisClient::Error
      Deckhand::Store::Jobs::Queues.size(store, "a")
    RUBY
    assert_equal [2, 3, 4, 5, 6, 7], Checks.redis_calls(broken).map(&:first)
  end

  def test_every_lua_script_has_a_class_that_owns_its_contract
    missing = Checks.unwrapped_scripts(lua_files, wrappers)
    assert_empty missing, "scripts with no Store::Script subclass in lib/deckhand/store/scripts/<name>.rb"
  end

  def test_the_script_check_wants_a_named_class_beside_the_script
    anonymous = Class.new(Deckhand::Store::Script) { lua "sets/zset_scan" } # no wrapper of its own
    paths = [File.join(Deckhand::Store::Script::DIR, "sets/zset_scan.lua"), "/elsewhere/orphan.lua"]
    assert_equal ["sets/zset_scan", "orphan"], Checks.unwrapped_scripts(paths, [anonymous])
    assert_equal ["orphan"], Checks.unwrapped_scripts(paths, [anonymous, Deckhand::Store::Scripts::ZsetScan])
  end

  # A script is as long as what Redis receives: its file with the shared
  # Lua of scripts/lib/ put in front of it (Script.lua's `uses:`). Within
  # this many lines one operation reads whole; past it, split the
  # operation or send a part only to the callers that need it.
  MAX_SENT_LINES = 250

  # The scripts over the limit today, each with the lines Redis receives
  # now (a ceiling: it may shrink, never grow) and why it is still whole.
  # A new script gets no entry; an entry goes once its script fits.
  SENT_OVER = {
    "fetch/fetch" => [524, "one atomic round trip: acknowledgements, unique unlocks, throttles, fair moves, the share plan and the lots; " \
      "to shrink, send the throttle and fair parts only to capsules that have such queues"],
    "batch/batch_job_done" => [340, "every batch operation carries lib/batch.lua, batch_outbox.lua and batch_check.lua whole; " \
      "to shrink, send batch_outbox.lua only in cluster mode, where the outbox exists"],
    "batch/batch_job_dead" => [335, "as batch_job_done"],
    "batch/batch_job_failed" => [329, "as batch_job_done"],
    "batch/batch_release" => [325, "as batch_job_done"],
    "fetch/recover" => [292, "a dead process's recovery hands back its lots and throttle slots in one step (lot, throttle, recover, guard)"],
    "batch/batch_create" => [274, "as batch_job_done, without batch_check.lua"],
    "batch/batch_add" => [278, "as batch_create, and the mark a bulk push leaves to answer a lost reply"],
    "batch/batch_pending" => [259, "as batch_create"],
    "fetch/recover_queue" => [256, "as recover, one queue at a time (cluster mode)"],
    "batch/batch_reopen" => [255, "as batch_create"],
    "batch/batch_delivered" => [252, "as batch_create"],
    "workflow/workflow_extend" => [306, "an add releases and cancels down the graph in one step: lib/workflow.lua, workflow_append, " \
      "workflow_finish (with a sub-workflow's end) and workflow_flush whole, the mode's own part (workflow_push.lua, or " \
      "workflow_outbox_write.lua in cluster mode), and the rules for a step added inside a sub-workflow"]
  }.freeze

  # script name => the most lines any of its wrappers sends.
  def sent_lines(classes) = classes.select(&:script_name).group_by(&:script_name).transform_values { |list| list.map { |klass| klass.source.lines.count }.max }

  def too_long_as_sent(lines, allowed)
    lines.sort.filter_map do |name, count|
      ceiling, = allowed[name]
      if ceiling.nil? && count > MAX_SENT_LINES
        "#{name}: #{count} lines as sent (limit #{MAX_SENT_LINES})"
      elsif ceiling && count > ceiling
        "#{name}: #{count} lines as sent, more than the #{ceiling} it is allowed"
      elsif ceiling && count <= MAX_SENT_LINES
        "#{name}: #{count} lines as sent fits now: remove it from SENT_OVER"
      end
    end
  end

  def test_no_lua_script_is_longer_than_the_limit_as_redis_receives_it
    lines = sent_lines(wrappers.select { |klass| Checks.wrapper_file?(klass) }) # not a test's own subclass
    assert_equal lua_files.map { |path| path.delete_prefix("#{Deckhand::Store::Script::DIR}/").delete_suffix(".lua") }.sort, lines.keys.sort, "every script is measured"
    assert_empty too_long_as_sent(lines, SENT_OVER), "split the operation, or send a shared part only to those that need it"
    assert_empty SENT_OVER.keys - lines.keys, "SENT_OVER names scripts that are gone"
  end

  def test_the_sent_length_counts_the_shared_lua_and_holds_each_script_to_its_ceiling
    fetch = Deckhand::Store::Scripts::Fetch
    file = File.foreach(File.join(Deckhand::Store::Script::DIR, "fetch/fetch.lua")).count
    shared = fetch.script_uses.sum { |lib| File.foreach(File.join(Deckhand::Store::Script::DIR, "lib", "#{lib}.lua")).count }
    assert_equal file + shared + fetch.script_uses.size, sent_lines([fetch])["fetch/fetch"], "the prelude counts, with a line between parts"
    broken = {"new" => 251, "fits" => 250, "grew" => 301, "shrank" => 250, "listed" => 300}
    allowed = {"grew" => [300, "why"], "shrank" => [260, "why"], "listed" => [300, "why"]}
    assert_equal ["grew: 301 lines as sent, more than the 300 it is allowed", "new: 251 lines as sent (limit 250)",
      "shrank: 250 lines as sent fits now: remove it from SENT_OVER"], too_long_as_sent(broken, allowed)
  end

  def test_no_lua_script_builds_or_names_a_key_itself
    problems = all_lua.flat_map do |path|
      Checks.literal_keys(File.read(path)).map { |problem| "#{path.delete_prefix("#{ROOT}/")}: #{problem}" }
    end
    assert_empty problems, "every key a script touches must arrive in KEYS"
  end

  def test_the_key_check_finds_literal_built_and_argv_keys
    broken = <<~LUA
      redis.call('SADD', 'queues', name)                  -- a literal
      redis.call("LPUSH", prefix .. name, payload)        -- built
      redis.pcall('HGET', ARGV[1], 'field')               -- from ARGV
      redis.call('LMOVE', KEYS[1], 'queue:' .. q, 'LEFT', 'RIGHT')  -- the second key
      redis.call(command, KEYS[1])                        -- unknowable
    LUA
    assert_equal 5, Checks.literal_keys(broken).size, Checks.literal_keys(broken).join("\n")
    fine = <<~LUA
      -- redis.call('GET', 'a comment')
      --[[ redis.call('GET', 'a block comment') ]]
      local q = KEYS[2]
      redis.call('HSET', KEYS[1], 'a,b)', cjson.encode({x = 1}))
      redis.call('LPUSH', q, unpack(ARGV, 2))
      redis.call('SADD', key(b, 'kids'), '..')
      redis.call('PING')
    LUA
    assert_empty Checks.literal_keys(fine)
  end

  def test_the_key_check_finds_keys_in_every_position_of_a_command
    broken = <<~LUA
      redis.call('DEL', KEYS[1], 'stray')                                  -- a later key
      redis.call('SORT', KEYS[1], 'BY', 'nosort', 'STORE', 'lot:' .. id)   -- the destination
      redis.call('SORT', KEYS[1], 'BY', 'weight_*', 'GET', '#')            -- a pattern of keys
    LUA
    assert_equal 3, Checks.literal_keys(broken).size, Checks.literal_keys(broken).join("\n")
    fine = "redis.call('SORT', KEYS[1], 'BY', 'nosort', 'LIMIT', 0, 5, 'DESC', 'STORE', KEYS[2])"
    assert_empty Checks.literal_keys(fine)
  end

  # Strings outside store/layout/ that are shaped like a key and are none,
  # each with what it is. Remove an entry once its string is gone.
  KEY_SHAPED_ALLOWED = {
    "lib/deckhand/store/connection/clients.rb" => ["deckhand:\#{}"], # a connection's name (CLIENT SETNAME), not a key
    "lib/deckhand/operations/statsd_reporter.rb" => ["policy:\#{}", "worker:\#{}", "queue:\#{}"] # StatsD tags
  }.freeze

  def ruby_built_keys
    lib_files.reject { |path| path.start_with?("lib/deckhand/store/layout/") }.flat_map do |path|
      Checks.ruby_keys(File.read(File.join(ROOT, path))).filter_map do |line, shape|
        "#{path}:#{line}: #{shape}" unless KEY_SHAPED_ALLOWED.fetch(path, []).include?(shape)
      end
    end
  end

  # Every key format is in the layout, in Ruby as in Lua: code elsewhere
  # asks the layout for a key and never glues one together.
  def test_no_key_is_built_in_ruby_outside_the_layout
    assert_empty ruby_built_keys, "name the key in lib/deckhand/store/layout/ and ask the layout for it"
  end

  def test_the_ruby_key_check_finds_built_and_prefixed_keys_but_not_prose
    broken = <<~'RUBY'
      jobs = "#{tag}:fair"                                  # built
      store.call("UNLINK", "#{source}:moving:batch")        # built, in a call
      PAUSED = "deckhand:paused"                            # Deckhand's prefix
      marker = "{deckhand}:placement:lock"
      # "#{tag}:fair" in a comment
      raise Error, "queue #{name}: not found"               # prose has spaces
      address = "#{host}:#{port}"                           # no word: a join
      label = "retry"                                       # no colon
    RUBY
    assert_equal [[1, "\#{}:fair"], [2, "\#{}:moving:batch"], [3, "deckhand:paused"], [4, "{deckhand}:placement:lock"]],
      Checks.ruby_keys(broken)
  end

  # The sets kept apart from the test map: each file tests a journey
  # through many parts (or is the suites' own support), not one part.
  APART = %w[bench browser cluster compat demo docs dropin e2e faults integration rails support swarm].freeze

  def mapped_tests
    folders = Dir[File.join(ROOT, "test/*/")].map { |dir| File.basename(dir) }
    assert_empty folders - APART - Checks::MAPPED_TESTS, "a new test folder: list it in APART or in Checks::MAPPED_TESTS"
    Checks::MAPPED_TESTS.flat_map { |dir| Dir[File.join(ROOT, "test", dir, "**/*_test.rb")] }.map { |path| path.delete_prefix("#{ROOT}/") }
  end

  # A file's test is found from its path: every test outside the sets kept
  # apart names what it tests in test/map.txt.
  def test_every_test_names_what_it_tests_in_the_map
    map = File.read(File.join(ROOT, "test/map.txt"))
    assert_empty Checks.test_map_problems(map, mapped_tests, ->(path) { File.exist?(File.join(ROOT, path)) }),
      "keep test/map.txt true: one line per test file, its subject a file or folder that exists"
  end

  def test_the_map_check_finds_unlisted_gone_and_doubled_tests
    files = %w[test/unit/a_test.rb test/unit/b_test.rb test/unit/c_test.rb lib/deckhand/a.rb lib/deckhand/web/]
    map = <<~MAP
      # a comment
      test/unit/a_test.rb   lib/deckhand/a.rb
      test/unit/b_test.rb   lib/deckhand/gone.rb
      test/unit/a_test.rb   lib/deckhand/web/
      test/unit/gone_test.rb lib/deckhand/a.rb
    MAP
    assert_equal ["line 3: lib/deckhand/gone.rb does not exist", "line 5: test/unit/gone_test.rb does not exist",
      "test/unit/a_test.rb is listed more than once", "test/unit/c_test.rb is not listed: add it with what it tests"],
      Checks.test_map_problems(map, files.first(3), files.method(:include?))
  end

  # Each layer names only what lies below it; a feature plugs in through the
  # configuration's hooks and is never named by the layers it plugs into.
  def test_no_layer_names_what_lies_above_it
    violations = lib_files.flat_map { |path| Checks.layer_violations(path, File.read(File.join(ROOT, path))) }
    assert_empty violations.map { |path, line, name| "#{path}:#{line} names #{name}" },
      "see Checks::LAYERS and the table in docs/internals.md (\"Where does X live\")"
  end

  def test_the_layer_check_finds_names_in_code_but_not_in_comments_or_strings
    broken = <<~RUBY
      outage = Server::Outage.new(logger, "what")
      page = Deckhand::Web::Pages
      # Server::Outage in a comment
      message = "Server::Outage in a string"
      Batch.install(config)
      Store::Features::BatchRecords.count(store)
    RUBY
    found = Checks.layer_violations("lib/deckhand/store/example.rb", broken)
    assert_equal [[1, "Server"], [2, "Web"], [5, "Batch"]], found.map { |_, line, name| [line, name] }
    assert_empty Checks.layer_violations("lib/deckhand/cli/example.rb", broken), "the CLI may name every layer"
  end

  # Where threads may start: the component base, and drop-in mode's
  # Sidekiq::Component#safe_thread, Sidekiq's API for a plugin's own thread
  # (its crash goes to the error handlers, as in Sidekiq).
  THREADS_ALLOWED = ["lib/deckhand/component.rb", "lib/deckhand/sidekiq/component.rb"].freeze

  # Every thread is a supervised Component, or a one-off Component.errand
  # that logs its failure: no thread of lib/ can die in silence.
  def test_threads_start_only_in_the_component_base
    code = ->(path) { File.read(File.join(ROOT, path)).each_line.reject { |line| line.strip.start_with?("#") }.join }
    starters = (lib_files - THREADS_ALLOWED).select { |path| code.call(path).match?(/\bThread\.(new|start|fork)\b/) }
    assert_empty starters, "start threads through Deckhand::Component (or Component.errand for a one-off)"
    THREADS_ALLOWED.each { |path| assert_match(/\bThread\.new\b/, code.call(path), "#{path} starts no thread: drop it from THREADS_ALLOWED") }
  end

  # Leaf names two classes or modules under Deckhand may share, each fixed
  # by what users write or by the file it is named after. Every other class
  # or module has a name of its own, so a name in a log line, a backtrace or
  # docs/internals.md points at one thing.
  SHARED_NAMES = {
    # The hook-in idiom: each module's `included` extends the class with its own.
    "ClassMethods" => %w[Deckhand::CLI::Command::ClassMethods Deckhand::IterableJob::ClassMethods Deckhand::Job::ClassMethods],
    # config.encryption's settings, and the public Deckhand::Encryption.
    "Encryption" => %w[Deckhand::Config::Encryption Deckhand::Encryption],
    # fetch.lua's wrapper takes its script's name; Server::Fetch holds the fetcher's parts.
    "Fetch" => %w[Deckhand::Server::Fetch Deckhand::Store::Scripts::Fetch],
    # Middleware users add by name (docs/batches.md, Tracing's usage).
    "ServerMiddleware" => %w[Deckhand::Batch::ServerMiddleware Deckhand::Tracing::ServerMiddleware],
    # config.throttle's settings, and the data API's throttle.
    "Throttle" => %w[Deckhand::API::Throttle Deckhand::Config::Throttle]
  }.freeze

  MAX_LINES = 250

  def shared_leaf_names
    defined = lib_files.flat_map do |path|
      Checks.defined_types(File.read(File.join(ROOT, path))).map { |name, line| [name, "#{path}:#{line}"] }
    end
    ours = defined.select { |name, _| name.start_with?("Deckhand::") }
    ours.group_by { |name, _| name.split("::").last }.transform_values { |list| list.map(&:first).uniq.sort }
      .select { |_, names| names.size > 1 }
  end

  def test_no_two_classes_or_modules_share_a_leaf_name
    shared = shared_leaf_names.reject { |leaf, names| SHARED_NAMES[leaf] == names }
    assert_empty shared.map { |leaf, names| "#{leaf}: #{names.join(", ")}" },
      "give the internal one a name that says what it is (or private_constant a nested struct)"
  end

  def test_the_name_check_sees_classes_structs_and_paths_but_not_private_constants
    source = <<~RUBY
      module Deckhand
        class Server::Stats; end
        module Store
          Stats = Struct.new(:a)
          Hidden = Data.define(:b)
          private_constant :Hidden
          LIMIT = 5
        end
      end
    RUBY
    assert_equal [["Deckhand", 1], ["Deckhand::Server::Stats", 2], ["Deckhand::Store", 3], ["Deckhand::Store::Stats", 4]],
      Checks.defined_types(source)
  end

  # The store's and the swarm's parts are internal (docs/internals.md, "The
  # public surface"): each file marks its own class for RDoc. Store::Limits
  # is public (docs/limits.md); the server is marked whole, in server.rb.
  PUBLIC_INSIDE = ["lib/deckhand/store/limits.rb"].freeze

  def test_internal_parts_are_marked_nodoc
    unmarked = lib_files.grep(%r{\Alib/deckhand/(store|swarm)/}).reject do |path|
      PUBLIC_INSIDE.include?(path) || Checks.own_definition_marked?(File.read(File.join(ROOT, path)))
    end
    assert_empty unmarked, "mark each file's own class or module `# :nodoc:` (or list it as public)"
    assert_match(/module Server # :nodoc: all$/, File.read(File.join(ROOT, "lib/deckhand/server.rb")))
    refute Checks.own_definition_marked?("module Deckhand\n  class Store\n    class Parts\n    end\n  end\nend\n")
    assert Checks.own_definition_marked?("module Deckhand\n  class Store\n    class Parts # :nodoc:\n    end\n  end\nend\n")
  end

  def test_no_lib_file_is_longer_than_max_lines
    # A folder deeper than lib/deckhand/<part>/ wraps its code in one more
    # namespace: those two lines are not what a reader reads.
    long = lib_files.select { |path| File.foreach(File.join(ROOT, path)).count - 2 * [path.count("/") - 3, 0].max > MAX_LINES }
    assert_empty long, "split each into parts of one class or module per file"
  end

  # Nothing in lib/ loads, through require or require_relative, what loads
  # it back: not between files, and not between the parts of lib/deckhand
  # (cli, server, swarm, operations...). bin/require-cycles prints the same.
  def test_no_require_cycle_in_lib
    sources = lib_files.to_h { |path| [path.delete_prefix("lib/"), File.read(File.join(ROOT, path))] }
    found = Checks.require_cycles(sources)
    assert_empty found.map { |what, lines| "#{what}:\n  #{lines.join("\n  ")}" },
      "require cycles in lib/: the lower part must not load the higher one (pass what it needs in, or register a hook)"
  end

  def test_the_cycle_check_finds_cycles_between_files_and_between_parts
    files = {
      "deckhand/a.rb" => "require_relative \"b\"\n# require_relative \"c\" in a comment",
      "deckhand/b.rb" => "require \"deckhand/a\"",
      "deckhand/c.rb" => "",
      "deckhand/cli.rb" => "require_relative \"swarm\"",
      "deckhand/swarm.rb" => "require_relative \"swarm/worker\"",
      "deckhand/swarm/worker.rb" => "require_relative \"../cli/signals\"",
      "deckhand/cli/signals.rb" => "require_relative \"../c\""
    }
    found = Checks.require_cycles(files).to_h
    assert_equal ["deckhand/a.rb:1 loads deckhand/b.rb", "deckhand/b.rb:1 loads deckhand/a.rb"], found["files deckhand/a.rb, deckhand/b.rb"]
    assert_equal ["deckhand/cli.rb:1 loads deckhand/swarm.rb", "deckhand/swarm/worker.rb:1 loads deckhand/cli/signals.rb"],
      found["components cli, swarm"]
    assert_equal 3, found.size, found.keys.inspect # a and b are also two components
    assert_empty Checks.require_cycles(files.merge("deckhand/b.rb" => "", "deckhand/swarm/worker.rb" => ""))
  end

  # An allowance nobody needs any more hides the next violation: each entry
  # must still be needed.
  def test_every_allowance_is_still_needed
    REDIS_ALLOWED.each do |prefix|
      files = lib_files.select { |path| under?(path, [prefix]) }
      used = files.any? { |path| Checks.redis_calls(File.read(File.join(ROOT, path))).any? }
      assert used, "#{prefix} no longer calls Redis directly: remove it from REDIS_ALLOWED"
    end
    KEY_SHAPED_ALLOWED.each do |path, shapes|
      found = Checks.ruby_keys(File.read(File.join(ROOT, path))).map(&:last)
      assert_empty shapes - found, "#{path} no longer holds these strings: remove them from KEY_SHAPED_ALLOWED"
    end
    shared = shared_leaf_names
    SHARED_NAMES.each { |leaf, names| assert_equal names, shared[leaf], "SHARED_NAMES[#{leaf.inspect}] no longer matches: update it" }
  end
end
