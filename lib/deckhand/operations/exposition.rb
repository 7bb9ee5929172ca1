# frozen_string_literal: true

module Deckhand
  module Operations
    # Writes Prometheus' text exposition format (version 0.0.4): a HELP and a
    # TYPE line per metric family, then its samples. Names and label names are
    # checked against the format's rules, label values and help text escaped,
    # values written as Prometheus reads them (NaN, +Inf, -Inf).
    #
    #   out = Exposition.new
    #   out.family("deckhand_queue_size", :gauge, "Jobs waiting in the queue")
    #   out.sample("deckhand_queue_size", {"queue" => "default"}, 12)
    #   out.to_s   # => "# HELP deckhand_queue_size Jobs waiting...\n# TYPE ...\ndeckhand_queue_size{queue=\"default\"} 12\n"
    class Exposition
      CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
      NAME = /\A[a-zA-Z_:][a-zA-Z0-9_:]*\z/
      LABEL = /\A[a-zA-Z_][a-zA-Z0-9_]*\z/
      TYPES = %i[counter gauge histogram summary untyped].freeze
      ESCAPES = {"\\" => "\\\\", "\"" => "\\\"", "\n" => "\\n"}.freeze

      def initialize
        @out = +""
      end

      def family(name, type, help)
        raise ArgumentError, "metric name #{name.inspect} breaks Prometheus' naming rules" unless NAME.match?(name)
        raise ArgumentError, "metric type must be one of #{TYPES.join(", ")}, got #{type.inspect}" unless TYPES.include?(type)
        @out << "# HELP " << name << " " << help.gsub("\\", "\\\\\\\\").gsub("\n", "\\n") << "\n"
        @out << "# TYPE " << name << " " << type.to_s << "\n"
        self
      end

      def sample(name, labels, value)
        inner = label_text(labels)
        @out << name
        @out << "{" << inner << "}" unless inner.empty?
        @out << " " << number(value) << "\n"
        self
      end

      # A histogram's samples from its per-bucket counts (not cumulative):
      # the cumulative _bucket series, +Inf, _sum and _count.
      def histogram(name, labels, bounds, counts, sum)
        inner = label_text(labels)
        bucket = inner.empty? ? "#{name}_bucket{le=\"" : "#{name}_bucket{#{inner},le=\""
        total = 0
        bounds.each_with_index do |bound, i|
          total += counts[i]
          @out << bucket << number(bound.to_f) << "\"} " << total.to_s << "\n"
        end
        total += counts[bounds.size]
        @out << bucket << "+Inf\"} " << total.to_s << "\n"
        sample("#{name}_sum", labels, sum)
        sample("#{name}_count", labels, total)
      end

      def to_s = @out.dup

      private

      def label_text(labels)
        return "" if labels.empty?
        labels.map { |key, text| "#{label_name(key)}=\"#{escape(text)}\"" }.join(",")
      end

      def label_name(key)
        key = key.to_s
        raise ArgumentError, "label name #{key.inspect} breaks Prometheus' naming rules" unless LABEL.match?(key) && !key.start_with?("__")
        key
      end

      def escape(text)
        text = text.to_s
        text = text.scrub unless text.valid_encoding?
        text.match?(/[\\"\n]/) ? text.gsub(/[\\"\n]/, ESCAPES) : text
      end

      def number(value)
        return value.to_s if value.is_a?(Integer)
        value = value.to_f
        return "NaN" if value.nan?
        return (value.positive? ? "+Inf" : "-Inf") if value.infinite?
        value.to_s
      end
    end
  end
end
