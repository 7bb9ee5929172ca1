# frozen_string_literal: true

require "cgi"

module Deckhand
  class Web
    # HTML-escaped by default: everything a page shows comes from Redis, where
    # any job argument, class or queue name may hold markup.
    #
    #   source = Template.compile("<p><%= job.klass %></p>\n<%= partial -%>")
    #
    # <% code %> runs Ruby; <%= value %> writes the value escaped, unless it is a
    # SafeHtml (a rendered partial, a helper's markup built from escaped parts);
    # -%> drops the newline after the tag. The compiled source keeps the
    # template's line numbers, so errors point at the right line.
    module Template
      TAG = /<%(=|#)?(.*?)(-?)%>(\n?)/m

      # A String known to be HTML: written as it is.
      class SafeHtml < String
        def to_s = self
      end

      module_function

      def escape(value)
        return value if value.is_a?(SafeHtml)
        SafeHtml.new(CGI.escapeHTML(text_of(value)))
      end

      # Bytes that are not valid UTF-8 (a job may carry anything) show as U+FFFD.
      def text_of(value)
        string = value.to_s
        return string if string.valid_encoding? && string.encoding != Encoding::BINARY
        string.dup.force_encoding(Encoding::UTF_8).scrub
      end

      # Ruby source that appends the rendered template to the String `_out`.
      def compile(source)
        code = +""
        position = 0
        source.scan(TAG) do
          match = Regexp.last_match
          text(code, source[position...match.begin(0)])
          kind, body, trim, newline = match.captures
          case kind
          when "#" then nil
          when "=" then code << "_out << ::Deckhand::Web::Template.escape((#{body}));"
          else code << body << ";"
          end
          code << ("\n" * body.count("\n"))
          if newline.empty? then nil
          elsif trim.empty? then text(code, "\n")
          else code << "\n"
          end
          position = match.end(0)
        end
        text(code, source[position..])
        code
      end

      def text(code, text)
        return if text.nil? || text.empty?
        code << "_out << #{text.dump};" << ("\n" * text.count("\n"))
      end
    end
  end
end
