# frozen_string_literal: true

require_relative "template"

module Deckhand
  class Web
    # The templates under web/views/, compiled once at load into methods of this
    # module, which every page action includes: a template sees the action's
    # instance variables and helpers, and partials get their values in `locals`.
    #
    #   render_template(:queues)                       # => SafeHtml
    #   render_template(:_pager, page: 2, pages: 9)    # a partial
    module Views
      DIR = File.expand_path("views", __dir__)

      Dir[File.join(DIR, "*.erb")].each do |file|
        name = File.basename(file, ".erb")
        source = Template.compile(File.read(file, encoding: "UTF-8"))
        # The template's own path and lines, so an error points into the template.
        class_eval("def __view_#{name}(locals); _out = +''; #{source}\n_out; end", file, 1) # standard:disable Style/EvalWithLocation
      end

      def render_template(name, **locals)
        Template::SafeHtml.new(public_send(:"__view_#{name}", locals))
      end
    end
  end
end
