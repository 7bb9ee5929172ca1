# frozen_string_literal: true

require "test_helper"
require "deckhand/web"

class WebTemplateTest < Minitest::Test
  Template = Deckhand::Web::Template

  def render(source, **vars)
    code = Template.compile(source)
    context = Object.new
    vars.each { |name, value| context.instance_variable_set(:"@#{name}", value) }
    context.instance_eval("_out = +''; #{code}\n_out", "template", 1) # standard:disable Style/EvalWithLocation
  end

  def test_values_are_escaped_and_safe_html_is_not
    assert_equal "<p>&lt;b&gt; &amp; &quot;q&quot; &#39;s&#39;</p>", render(%(<p><%= @v %></p>), v: %(<b> & "q" 's'))
    assert_equal "<p><i>ok</i></p>", render("<p><%= @v %></p>", v: Template::SafeHtml.new("<i>ok</i>"))
  end

  def test_code_comments_and_trimmed_newlines
    source = "<ul>\n<% @items.each do |i| -%>\n<li><%= i %></li>\n<% end -%>\n</ul><%# not shown %>\n"
    assert_equal "<ul>\n<li>1</li>\n<li>2</li>\n</ul>\n", render(source, items: [1, 2])
  end

  def test_bytes_that_are_not_utf8_are_shown_replaced
    assert_equal "a\uFFFDb", render("<%= @v %>", v: "a\xFFb".b)
  end

  def test_errors_point_at_the_template_line
    error = assert_raises(NoMethodError) { render("line 1\n<% x = 1 %>\nline 3 <%= @v.nope %>", v: 1) }
    assert_includes error.backtrace.first, "template:3"
  end
end
