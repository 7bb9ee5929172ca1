# frozen_string_literal: true

module Deckhand
  # A strict reader of Prometheus' text exposition format (0.0.4), written
  # from the format's rules, for tests: it raises ParseError on anything a
  # Prometheus server would reject or that the rules forbid (bad names, bad
  # escapes, a TYPE after its samples, a family split in two, a duplicate
  # series, a histogram whose buckets are not cumulative or lack +Inf, a
  # missing final newline).
  #
  #   families = PrometheusParser.parse(text)
  #   families["deckhand_queue_size"].type                     # => "gauge"
  #   families["deckhand_queue_size"].value({"queue" => "a"})  # => 3.0
  class PrometheusParser
    class ParseError < StandardError; end

    Family = Struct.new(:name, :type, :help, :samples) do
      # The value of the sample with exactly these labels (sample name defaults to the family's).
      def value(labels = {}, name = self.name)
        found = samples.find { |s| s[0] == name && s[1] == labels } or return nil
        found[2]
      end

      def series(name = self.name) = samples.select { |s| s[0] == name }
    end

    METRIC = /[a-zA-Z_:][a-zA-Z0-9_:]*/
    LABEL = /[a-zA-Z_][a-zA-Z0-9_]*/
    TYPES = %w[counter gauge histogram summary untyped].freeze
    FLOAT = /\A[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|NaN|Inf|inf)\z/

    def self.parse(text) = new(text).parse

    def initialize(text)
      @text = text
      @families = {}
      @seen = {}
      @current = nil
      @finished = []
    end

    def parse
      raise ParseError, "the exposition must end with a newline" unless @text.empty? || @text.end_with?("\n")
      @text.each_line.with_index(1) do |line, number|
        @line = number
        line = line.chomp
        next if line.strip.empty?
        line.start_with?("#") ? comment(line) : sample(line)
      end
      @families.each_value { |family| check_histogram(family) if family.type == "histogram" }
      @families
    end

    private

    def fail!(message) = raise(ParseError, "line #{@line}: #{message}")

    def comment(line)
      match = /\A#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?\z/.match(line) or return
      kind, name, rest = match.captures
      fail!("bad metric name #{name.inspect}") unless /\A#{METRIC}\z/o.match?(name)
      family = family_for(name)
      if kind == "HELP"
        fail!("second HELP for #{name}") if family.help
        family.help = rest.to_s.gsub(/\\(.?)/) do
          fail!("bad escape \\#{$1} in HELP of #{name}") unless ["\\", "n"].include?($1)
          ($1 == "n") ? "\n" : $1
        end
      else
        fail!("second TYPE for #{name}") if family.type
        fail!("TYPE of #{name} after its samples") unless family.samples.empty?
        fail!("unknown type #{rest.inspect}") unless TYPES.include?(rest)
        family.type = rest
      end
    end

    def family_for(name)
      family = @families[name] ||= Family.new(name, nil, nil, [])
      if @current != name
        fail!("family #{name} appears in two places") if @finished.include?(name)
        @finished << @current if @current
        @current = name
      end
      family
    end

    def sample(line)
      name = line[/\A#{METRIC}/o] or fail!("a sample must start with a metric name: #{line.inspect}")
      rest = line[name.size..]
      labels = {}
      if rest.start_with?("{")
        rest = read_labels(rest[1..], labels)
      end
      parts = rest.split(" ")
      fail!("expected a value (and maybe a timestamp) after #{name}, got #{rest.inspect}") unless rest.start_with?(" ") && [1, 2].include?(parts.size)
      fail!("bad value #{parts[0].inspect}") unless FLOAT.match?(parts[0])
      fail!("bad timestamp #{parts[1].inspect}") if parts[1] && !/\A-?\d+\z/.match?(parts[1])
      family = family_for(family_name(name))
      key = [name, labels]
      fail!("duplicate series #{name}#{labels}") if @seen[key]
      @seen[key] = true
      check_sample_name(family, name, labels)
      family.samples << [name, labels, float(parts[0])]
    end

    def read_labels(text, labels)
      loop do
        text = text.lstrip
        return text[1..] if text.start_with?("}")
        label = text[/\A#{LABEL}/o] or fail!("bad label name in #{text.inspect}")
        text = text[label.size..]
        fail!("expected =\" after label #{label}") unless text.start_with?("=\"")
        text = text[2..]
        value = +""
        loop do
          char = text[0] or fail!("unterminated label value")
          text = text[1..]
          break if char == "\""
          if char == "\\"
            escaped = text[0]
            fail!("bad escape \\#{escaped} in a label value") unless ["\\", "\"", "n"].include?(escaped)
            value << ((escaped == "n") ? "\n" : escaped)
            text = text[1..]
          else
            fail!("raw newline in a label value") if char == "\n"
            value << char
          end
        end
        fail!("label #{label} twice") if labels.key?(label)
        labels[label] = value
        text = text.lstrip
        if text.start_with?(",")
          text = text[1..]
        elsif !text.start_with?("}")
          fail!("expected , or } after label #{label}")
        end
      end
    end

    # Histogram and summary samples belong to the family without their suffix.
    def family_name(name)
      base = name.sub(/_(bucket|sum|count)\z/, "")
      (base != name && %w[histogram summary].include?(@families[base]&.type)) ? base : name
    end

    def check_sample_name(family, name, labels)
      case family.type
      when "histogram"
        fail!("#{name} is not a sample of histogram #{family.name}") unless ["#{family.name}_bucket", "#{family.name}_sum", "#{family.name}_count"].include?(name)
        fail!("#{name} needs an le label") if name.end_with?("_bucket") && !labels.key?("le")
        fail!("#{name} may not have an le label") if !name.end_with?("_bucket") && labels.key?("le")
      when "counter", "gauge"
        fail!("#{name} is not the name of #{family.type} #{family.name}") unless name == family.name
      end
    end

    def check_histogram(family)
      groups = family.samples.group_by { |_, labels, _| labels.except("le") }
      groups.each do |labels, samples|
        buckets = samples.select { |s| s[0].end_with?("_bucket") }.map { |_, l, v| [float(l["le"]), v] }
        fail!("histogram #{family.name}#{labels} has no +Inf bucket") unless buckets.any? { |le, _| le == Float::INFINITY }
        fail!("histogram #{family.name}#{labels}: buckets out of order") unless buckets.map(&:first) == buckets.map(&:first).sort
        fail!("histogram #{family.name}#{labels}: buckets not cumulative") unless buckets.map(&:last) == buckets.map(&:last).sort
        count = family.value(labels, "#{family.name}_count") or fail!("histogram #{family.name}#{labels} has no _count")
        family.value(labels, "#{family.name}_sum") or fail!("histogram #{family.name}#{labels} has no _sum")
        fail!("histogram #{family.name}#{labels}: +Inf bucket differs from _count") unless buckets.last.last == count
      end
    end

    def float(text)
      case text
      when "NaN" then Float::NAN
      when "+Inf", "Inf", "inf" then Float::INFINITY
      when "-Inf" then -Float::INFINITY
      else
        fail!("bad number #{text.inspect}") unless FLOAT.match?(text)
        Float(text)
      end
    end
  end
end
