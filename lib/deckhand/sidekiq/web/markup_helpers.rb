# frozen_string_literal: true

require "rack"

module Sidekiq
  # The markup helpers of Sidekiq::WebHelpers: escaping, tags carrying the
  # page's CSP nonce, the CSRF field, times, numbers, job arguments.
  #
  #   <%= script_tag "cron/js/cron.js" %>   # <script type="text/javascript" nonce="..." src="/sidekiq/cron/js/cron.js"></script>
  #   <%= h(job.display_class) %> · <%= display_args(job.args) %>
  module WebMarkupHelpers
    def h(text)
      ::Rack::Utils.escape_html(text.to_s)
    rescue ArgumentError # bytes that are not UTF-8: shown without them
      ::Rack::Utils.escape_html(text.to_s.dup.force_encoding(Encoding::UTF_8).scrub(""))
    end

    def csp_nonce = env[:csp_nonce]

    # Both fields the dashboard's check takes: the Rack session's token
    # (authenticity_token, as Sidekiq's forms send) and the cookie's (_csrf).
    def csrf_tag
      session_token = %(<input type='hidden' name='authenticity_token' value='#{h(env[:csrf_token])}'/>)
      cookie_token = env[Deckhand::DropIn::WebExtension::CSRF_TOKEN]
      cookie_token ? session_token + %(<input type='hidden' name='_csrf' value='#{h(cookie_token)}'/>) : session_token
    end

    # The stylesheet's tag; as Sidekiq 8 has it, added to the page's head
    # and the head's tags returned (`<% style_tag "ext.css" %>`).
    # Attributes are written as given: pass no user input in them.
    def style_tag(location, **attributes)
      link = tag(:link, {type: "text/css", media: "screen", rel: "stylesheet", nonce: csp_nonce, href: asset_location(location)}.merge(attributes))
      Deckhand::DropIn.version.style_tag_adds_to_head? ? add_to_head { link } : link
    end

    def script_tag(location, **attributes)
      tag(:script, {type: "text/javascript", nonce: csp_nonce, src: asset_location(location)}.merge(attributes), closed: true)
    end

    def add_to_head
      (@head_html ||= []) << yield.dup if block_given?
    end

    def display_custom_head = @head_html&.join

    def relative_time(time)
      stamp = time.getutc.iso8601
      %(<time class="ltr" dir="ltr" title="#{stamp}" datetime="#{stamp}">#{time}</time>)
    end

    def truncate(text, limit = 2000) = (limit && text.size > limit) ? "#{text[0..limit]}..." : text

    def to_display(arg)
      arg.inspect
    rescue
      begin
        arg.to_s
      rescue => e
        "Cannot display argument: [#{e.class.name}] #{e.message}"
      end
    end

    def display_args(args, limit = 2000)
      return "Invalid job payload, args is nil" if args.nil?
      return "Invalid job payload, args must be an Array, not #{args.class.name}" unless args.is_a?(Array)
      args.map { |arg| h(truncate(to_display(arg), limit)) }.join(", ")
    rescue
      "Illegal job arguments: #{h(args.inspect)}"
    end

    # The value escaped for HTML in the address too, as Sidekiq 8 writes it
    # (the browser reads &lt; back as < and encodes it when it sends the link).
    def filter_link(jid, within = "retries")
      return h(jid) if within.nil?
      "<a href='#{root_path}#{within}?substr=#{h(jid)}'>#{h(jid)}</a>"
    end

    # Each tag with Sidekiq 8's jobtag-<tag> class, for an extension's CSS.
    def display_tags(job, within = "retries")
      job.tags.map { |tag| "<span class='label label-info jobtag jobtag-#{h(tag)}'>#{filter_link(tag, within)}</span>" }.join(" ")
    end

    # A filter box for a list page (Sidekiq's `substr=` parameter).
    def filtering(which)
      %(<form method="get" class="filter" action="#{root_path}#{h(which)}"><input type="search" name="substr" ) +
        %(value="#{h(url_params("substr"))}" aria-label="Filter"><button>Filter</button></form>)
    end

    def sort_direction_label = (params[:direction] == "asc") ? "&uarr;" : "&darr;"

    def number_with_delimiter(number, options = {})
      precision = options[:precision] || 0
      %(<span data-nwp="#{precision}">#{number.round(precision)}</span>)
    end

    def format_memory(rss_kb)
      return "0" if rss_kb.nil? || rss_kb.zero?
      if rss_kb < 100_000 then "#{number_with_delimiter(rss_kb)} KB"
      elsif rss_kb < 10_000_000 then "#{number_with_delimiter((rss_kb / 1024.0).to_i)} MB"
      else
        "#{number_with_delimiter(rss_kb / 1_048_576.0, precision: 1)} GB"
      end
    end

    private

    def asset_location(location)
      return location if location.include?("://") || location.start_with?(root_path)
      root_path + location
    end

    def tag(name, attributes, closed: false)
      markup = "<#{name}"
      attributes.each { |key, value| markup << %( #{key}="#{value}") if value }
      markup << (closed ? "></#{name}>" : " />")
    end
  end
end
