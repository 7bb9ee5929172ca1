# frozen_string_literal: true

require "ripper"

module Deckhand
  # Static checks of the rule "one door to Redis" and of the layers
  # (docs/internals.md), as plain functions over source text so a test can
  # run each on a broken example as well as on lib/.
  #
  #   ArchitectureChecks.redis_calls("x = store.call(\"GET\", \"k\")")   # => [[1, "x = store.call(..."]]
  #   ArchitectureChecks.unwrapped_scripts(["a.lua"], [])                # => ["a"]
  #   ArchitectureChecks.literal_keys("redis.call('GET', 'k')")          # => ["redis.call('GET', 'k'): key 'k' is a string literal"]
  #   ArchitectureChecks.require_cycles({"a.rb" => 'require_relative "b"', "b.rb" => 'require_relative "a"'})
  #   # => [["files a.rb, b.rb", ["a.rb:1 loads b.rb", "b.rb:1 loads a.rb"]], ["components a, b", [...]]]
  module ArchitectureChecks
    # What issues Redis commands or names the Redis client: a command sent
    # (a string literal first), a pipeline or transaction, a blocking call,
    # a script run by SHA, the client's constant.
    REDIS_USE = [
      /\.call\(\s*["']/, /\.pipelined\b/, /\.multi\b/, /\bblocking_call\b/, /\.evalsha\b/, /\bRedisClient\b/
    ].freeze

    # Commands whose arguments name no key.
    KEYLESS = %w[PING ECHO TIME INFO DBSIZE RANDOMKEY FLUSHALL FLUSHDB SCAN KEYS PUBLISH SCRIPT CLIENT CONFIG
      CLUSTER COMMAND LASTSAVE ROLE SELECT WAIT EVAL EVALSHA EVAL_RO EVALSHA_RO FCALL FCALL_RO].freeze

    # Commands whose first key comes after a subcommand or a key count.
    KEY_AT = {"OBJECT" => 2, "MEMORY" => 2, "XINFO" => 2, "XGROUP" => 2, "BITOP" => 2, "LMPOP" => 2, "ZMPOP" => 2,
              "SINTERCARD" => 2, "ZINTERCARD" => 2, "ZDIFF" => 2, "ZINTER" => 2, "ZUNION" => 2, "BLMPOP" => 3, "BZMPOP" => 3}.freeze

    # Commands with a second key right after the first.
    TWO_KEYS = %w[LMOVE BLMOVE RPOPLPUSH BRPOPLPUSH SMOVE RENAME RENAMENX COPY ZRANGESTORE GEOSEARCHSTORE].freeze

    # Commands whose every argument is a key.
    ALL_KEYS = %w[DEL UNLINK EXISTS TOUCH MGET SINTER SUNION SDIFF SINTERSTORE SUNIONSTORE SDIFFSTORE PFCOUNT PFMERGE].freeze

    # SORT's options that name keys: its destination, and the patterns of
    # the keys it reads (but for "nosort" and "#", which name none).
    SORT_KEY_OPTIONS = {"STORE" => nil, "BY" => "nosort", "GET" => "#"}.freeze

    # What each top folder of lib/deckhand must not name: the layers above
    # it, and the features that plug into it (they register themselves).
    LAYERS = {
      "store" => %w[Server Client API Web CLI Swarm Operations Sidekiq Testing Batch Workflow Periodic Limiter IterableJob],
      "payload" => %w[Store Server Client API Web CLI Swarm Operations Sidekiq Testing Batch Workflow],
      "server" => %w[API Web CLI Swarm Sidekiq Testing Batch Workflow],
      "client" => %w[Server API Web CLI Swarm Operations Batch Workflow],
      "api" => %w[Server Web CLI Swarm Operations Testing],
      "web" => %w[Server Store CLI Swarm Sidekiq Testing],
      "config" => %w[Server Client API Web CLI Swarm Operations Sidekiq Testing Batch Workflow DevRedis],
      "operations" => %w[Server CLI Swarm Sidekiq Testing Batch Workflow],
      "locale" => %w[Store Server Client API Web CLI Swarm Operations Sidekiq Testing Batch Workflow]
    }.freeze

    # The test folders whose files test one part each, listed in
    # test/map.txt with what they test.
    MAPPED_TESTS = %w[unit].freeze

    module_function

    # [[line number, line], ...] of the lines of Ruby source that use Redis.
    def redis_calls(source)
      source.each_line.with_index(1).filter_map do |line, number|
        code = line.sub(/^\s*#.*/, "")
        [number, line.strip] if REDIS_USE.any? { |pattern| code.match?(pattern) }
      end
    end

    # The names of the scripts (from their .lua paths) no class names: a
    # class counts only if it is a named Store::Script subclass defined in
    # the scripts' own folder (not, say, an anonymous one).
    def unwrapped_scripts(lua_paths, classes)
      wrapped = classes.select { |klass| klass < Store::Script && wrapper_file?(klass) }.map(&:script_name)
      lua_paths.map { |path| path.delete_prefix("#{Store::Script::DIR}/").delete_suffix(".lua").sub(%r{\A/.*/}, "") } - wrapped
    end

    def wrapper_file?(klass)
      return false unless klass.name
      file, = Object.const_source_location(klass.name)
      !file.nil? && File.dirname(file, 2) == Store::Script::DIR
    end

    # What is wrong with each redis.call/pcall of a Lua source whose key
    # argument is a string literal, is built by concatenation, or is an
    # element of ARGV: the key must come from KEYS (a variable holding one,
    # or a function that looks one up, is fine).
    def literal_keys(source)
      code = strip_lua_comments(source)
      problems = []
      code.scan(/redis\.p?call\s*\(/) do
        match = Regexp.last_match
        args = split_arguments(code, match.end(0))
        problems.concat(key_problems("#{match[0]}#{args.join(", ")})", args))
      end
      problems
    end

    def key_problems(call, args)
      command = args.first.to_s
      return ["#{call}: the command is not a string literal, so its keys cannot be checked"] unless literal?(command)
      name = command[1...-1].upcase
      return [] if KEYLESS.include?(name)
      key_positions(name, args).filter_map do |i|
        key = args[i]
        if key.nil? then "#{call}: no key"
        elsif literal?(key) then "#{call}: key #{key} is a string literal"
        elsif outside_strings(key).include?("..") then "#{call}: key #{key} is built by concatenation"
        elsif key.match?(/\AARGV\b/) then "#{call}: key #{key} comes from ARGV"
        end
      end
    end

    def key_positions(name, args)
      return (1...args.size).to_a if ALL_KEYS.include?(name)
      return [1] + sort_keys(args) if %w[SORT SORT_RO].include?(name)
      first = KEY_AT.fetch(name, 1)
      TWO_KEYS.include?(name) ? [first, first + 1] : [first]
    end

    # The positions of SORT's arguments that name keys (after STORE, BY, GET).
    def sort_keys(args)
      (2...args.size).select do |i|
        option = args[i - 1]
        next false unless literal?(option)
        none = SORT_KEY_OPTIONS.fetch(option[1...-1].upcase, false)
        none != false && args[i] != "'#{none}'" && args[i] != %("#{none}")
      end
    end

    # [[path, line number, name], ...] of the constants a file of lib/deckhand
    # names that its folder's layer must not (LAYERS), comments left out.
    def layer_violations(path, source)
      folder = path[%r{\Alib/deckhand/([a-z_]+)(?:/|\.rb\z)}, 1]
      forbidden = LAYERS[folder] or return []
      pattern = /(?<![\w:])(?:::)?(?:Deckhand::)?(#{forbidden.join("|")})(?:::|\.|\b(?=\s*[.(]))/
      source.each_line.with_index(1).flat_map do |line, number|
        code = line.sub(/(?:^|\s)#.*/, "")
        code = code.gsub(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/, "''") unless path.end_with?(".lua")
        code.scan(pattern).map { |(name)| [path, number, name] }
      end
    end

    # What a line of Ruby loads from lib/: require_relative, and require of
    # a path under deckhand/ (or active_job/), comments left out.
    LOADS = [
      [/\brequire_relative\s*\(?\s*["']([^"'#]+)["']/, :relative],
      [/\brequire\s*\(?\s*["']((?:deckhand|active_job)(?:\/[^"'#]*)?)["']/, :lib]
    ].freeze

    # {"deckhand/cli.rb" => [["deckhand/swarm.rb", 12], ...], ...}: what each
    # file of `lib_dir` loads from it, with the line that does. `sources`
    # maps each path (relative to lib_dir) to its text.
    def require_graph(sources)
      sources.to_h do |path, text|
        loads = text.each_line.with_index(1).flat_map do |line, number|
          code = line.sub(/(?:^|\s)#.*/, "")
          LOADS.flat_map do |pattern, kind|
            code.scan(pattern).map do |(target)|
              target = "#{target}.rb" unless target.end_with?(".rb")
              target = File.expand_path(target, "/#{File.dirname(path)}").delete_prefix("/") if kind == :relative
              [target, number]
            end
          end
        end
        [path, loads.select { |target, _| sources.key?(target) }]
      end
    end

    # The part of lib a file belongs to: lib/deckhand/cli.rb and everything
    # under lib/deckhand/cli/ are "cli"; lib/deckhand.rb is "deckhand".
    def component(path)
      parts = path.delete_suffix(".rb").split("/")
      (parts.first == "deckhand" && parts.size > 1) ? parts[1] : parts.first
    end

    # The same graph between components: {"cli" => {"swarm" => ["deckhand/cli.rb:12 loads deckhand/swarm.rb"]}}.
    def component_graph(graph)
      edges = Hash.new { |hash, from| hash[from] = Hash.new { |inner, to| inner[to] = [] } }
      graph.each do |path, loads|
        loads.each do |target, number|
          from, to = component(path), component(target)
          edges[from][to] << "#{path}:#{number} loads #{target}" unless from == to
        end
      end
      edges
    end

    # Every cycle of a graph ({node => [node, ...]}), as its strongly
    # connected groups of more than one node (or a node that loads itself),
    # each sorted. Tarjan's algorithm, without recursion.
    def cycles(graph)
      index = {}
      low = {}
      stack = []
      on_stack = {}
      found = []
      counter = 0
      graph.each_key do |root|
        next if index.key?(root)
        work = [[root, 0]]
        until work.empty?
          node, next_child = work.last
          if next_child.zero?
            index[node] = low[node] = counter
            counter += 1
            stack << node
            on_stack[node] = true
          end
          children = graph.fetch(node, [])
          if next_child < children.size
            work.last[1] += 1
            child = children[next_child]
            if !index.key?(child)
              work << [child, 0]
            elsif on_stack[child]
              low[node] = [low[node], index[child]].min
            end
            next
          end
          work.pop
          low[work.last[0]] = [low[work.last[0]], low[node]].min unless work.empty?
          next unless low[node] == index[node]
          group = []
          loop do
            member = stack.pop
            on_stack.delete(member)
            group << member
            break if member == node
          end
          found << group.sort if group.size > 1 || children.include?(node)
        end
      end
      found.sort
    end

    # Each require cycle of lib, between files and between components, with
    # the lines that make it: [["components cli, migration", ["deckhand/cli/migrate_command.rb:5 loads ..."]], ...]
    def require_cycles(sources)
      graph = require_graph(sources)
      files = cycles(graph.transform_values { |loads| loads.map(&:first) }).map do |group|
        lines = group.flat_map { |path| graph[path].filter_map { |target, n| "#{path}:#{n} loads #{target}" if group.include?(target) } }
        ["files #{group.join(", ")}", lines]
      end
      edges = component_graph(graph)
      parts = cycles(edges.transform_values(&:keys)).map do |group|
        lines = group.flat_map { |from| group.flat_map { |to| edges[from].fetch(to, []) } }
        ["components #{group.join(", ")}", lines]
      end
      files + parts
    end

    DEFINITION = /^(\s*)(?:class|module) [A-Z]\w*(?:::\w+)*(?:\s*<\s*\S+)?(\s*#.*)?$/

    # True when the most deeply nested class or module a file defines (its
    # own, inside Deckhand's namespaces) carries `# :nodoc:` on its line.
    def own_definition_marked?(source)
      found = source.scan(DEFINITION)
      return true if found.empty?
      deepest = found.map { |indent, _| indent.size }.max
      found.select { |indent, _| indent.size == deepest }.all? { |_, comment| comment.to_s.include?(":nodoc:") }
    end

    def literal?(text) = text.match?(/\A(["']).*\1\z/m)

    # The text with its string literals emptied, so what is inside them
    # (a ".." or "ARGV" in a message) does not count.
    def outside_strings(text) = text.gsub(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/, "''")

    # The top-level arguments of a call whose "(" ends just before `start`.
    def split_arguments(code, start)
      args = []
      depth = 0
      quote = nil
      current = +""
      i = start
      while i < code.length
        char = code[i]
        if quote
          current << char
          if char == "\\"
            current << code[i + 1].to_s
            i += 1
          elsif char == quote
            quote = nil
          end
        elsif char == "'" || char == '"'
          quote = char
          current << char
        elsif "([{".include?(char)
          depth += 1
          current << char
        elsif ")]}".include?(char)
          break if depth.zero?
          depth -= 1
          current << char
        elsif char == "," && depth.zero?
          args << current.strip
          current = +""
        else
          current << char
        end
        i += 1
      end
      args << current.strip unless current.strip.empty?
      args
    end

    # Lua without its comments (--[[ ]] blocks and -- to the end of a line),
    # leaving string literals alone.
    def strip_lua_comments(source)
      source.gsub(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|--\[(=*)\[.*?\]\1\]|--[^\n]*/m) do |match|
        match.start_with?("--") ? "" : match
      end
    end

    # A string shaped like a Redis key: no spaces, segments joined by ":",
    # at least one of them a word (#{} stands for an interpolation).
    RUBY_KEY = /\A(?:#\{\}|[a-z{][\w{}~-]*)(?::(?:#\{\}|[\w{}~*-]+))+\z/

    # [[line, shape], ...] of the string literals of Ruby source shaped like
    # a key that is built there (interpolated) or named with Deckhand's own
    # prefixes. Comments are not string literals, so they are left out; a
    # key written without a colon ("retry") cannot be told from a word.
    def ruby_keys(source)
      found = []
      open = []
      Ripper.lex(source).each do |(line, _), type, token, _|
        case type
        when :on_tstring_beg then open << [line, +""]
        when :on_tstring_content then open.last&.last&.<<(token)
        when :on_embexpr_beg then open.last&.last&.<<("\#{}")
        when :on_tstring_end
          at, shape = open.pop
          found << [at, shape] if shape && key_shaped?(shape)
        end
      end
      found
    end

    def key_shaped?(shape)
      return false unless shape.match?(RUBY_KEY) && shape.match?(/[a-z]/)
      shape.include?("\#{}") || shape.start_with?("deckhand:", "{deckhand}", "{queue")
    end

    # What is wrong with a test map (test/map.txt: a test file, then the
    # file or folder it tests, per line): `tests` are the test files that
    # must be listed; `exists` tells whether a path of the repository is there.
    def test_map_problems(map, tests, exists)
      rows = map.each_line.with_index(1).reject { |line, _| line.strip.empty? || line.start_with?("#") }
      listed = Hash.new(0)
      problems = rows.flat_map do |line, number|
        test, subject, extra = line.split
        listed[test] += 1
        [("line #{number}: a test and its subject, nothing more" if subject.nil? || extra),
          ("line #{number}: #{test} does not exist" unless exists.call(test)),
          ("line #{number}: #{subject} does not exist" if subject && !exists.call(subject))].compact
      end
      problems + listed.select { |_, count| count > 1 }.keys.map { |test| "#{test} is listed more than once" } +
        (tests - listed.keys).map { |test| "#{test} is not listed: add it with what it tests" }
    end

    # [[full name, line], ...] of the classes and modules a Ruby file defines
    # (`class`, `module`, and constants given a Struct.new, Data.define,
    # Class.new or Module.new), read from its syntax tree without loading it.
    # Constants made private_constant are left out: no one outside their
    # namespace can name them.
    def defined_types(source)
      found = []
      walk_types(Ripper.sexp(source), [], found)
      found
    end

    def walk_types(node, scope, found)
      return unless node.is_a?(Array)
      case node[0]
      when :module, :class
        name = constant_path(node[1])
        line = node[1].flatten.find { |x| x.is_a?(Integer) }
        nested = name.start_with?("::") ? name.delete_prefix("::").split("::") : scope + name.split("::")
        found << [nested.join("::"), line]
        body = (node[0] == :class) ? node[3] : node[2]
        hidden = private_constants(body)
        inner = []
        walk_types(body, nested, inner)
        found.concat(inner.reject { |full, _| full.split("::")[0..-2] == nested && hidden.include?(full.split("::").last) })
        return
      when :assign
        target = node[1]
        if target[0] == :var_field && target[1][0] == :@const && type_maker?(node[2])
          found << [(scope + [target[1][1]]).join("::"), target[1][2][0]]
        end
      end
      node.each { |child| walk_types(child, scope, found) }
    end

    def constant_path(node)
      case node[0]
      when :const_ref, :var_ref then node[1][1]
      when :top_const_ref then "::#{node[1][1]}"
      when :const_path_ref then "#{constant_path(node[1])}::#{node[2][1]}"
      else raise ArgumentError, "unexpected constant #{node.inspect[0, 80]}"
      end
    end

    # Struct.new(...), Data.define(...), Class.new(...) and Module.new, with or
    # without a block.
    def type_maker?(node)
      node = node[1] while node.is_a?(Array) && %i[method_add_block method_add_arg].include?(node[0])
      return false unless node.is_a?(Array) && node[0] == :call
      receiver = node[1]
      receiver.is_a?(Array) && receiver[0] == :var_ref && %w[Struct Data Class Module].include?(receiver[1][1])
    end

    # The names a class or module body passes to private_constant.
    def private_constants(body)
      names = []
      visit = lambda do |node|
        next unless node.is_a?(Array)
        next if %i[class module].include?(node[0])
        if %i[command method_add_arg].include?(node[0]) && node.flatten.include?("private_constant")
          node.flatten.each_cons(2) { |a, b| names << b if %i[@ident @const].include?(a) && b != "private_constant" }
        end
        node.each { |child| visit.call(child) }
      end
      visit.call(body)
      names
    end
  end
end
