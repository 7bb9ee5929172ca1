# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # A batch's progress as a bar and a word. The bar is inline SVG sized by
      # attributes, so it needs no inline style under the page's policy.
      #
      #   progress_bar(status)   # => <svg class="progress" ...><rect class="done" width="600" .../>...</svg>
      #   batch_state(status)    # => ["running", nil] or ["succeeded", "good"], ...
      module Progress
        WIDTH = 1000

        # Succeeded, failing and dead jobs, left to right; what is left waits.
        def progress_parts(status)
          total = status.total
          dead = [status.dead_count, total].min
          failing = (status.failures - dead).clamp(0, total - dead)
          done = (total - status.pending).clamp(0, total - dead - failing)
          {done: done, failing: failing, dead: dead, waiting: total - done - failing - dead}
        end

        def progress_bar(status)
          parts = progress_parts(status)
          total = status.total
          x = 0
          rects = %i[done failing dead].map do |part|
            width = if total.positive? then WIDTH * parts[part] / total
            elsif part == :done && status.success? then WIDTH # a batch with no jobs: done at once
            else 0
            end
            rect = %(<rect class="#{part}" x="#{x}" y="0" width="#{width}" height="10"/>)
            x += width
            rect
          end
          label = progress_words(status, parts)
          html(%(<svg class="progress" viewBox="0 0 #{WIDTH} 10" preserveAspectRatio="none" role="img" aria-label="#{h(label)}">) +
            %(<title>#{h(label)}</title>#{rects.join}</svg>))
        end

        def progress_words(status, parts = progress_parts(status))
          words = [locale.t("progress.succeeded", n: number(parts[:done]), total: number(status.total))]
          words << locale.t("progress.failing", n: number(parts[:failing])) if parts[:failing].positive?
          words << locale.t("progress.dead", n: number(parts[:dead])) if parts[:dead].positive?
          words << locale.t("progress.waiting", n: number(parts[:waiting])) if parts[:waiting].positive?
          words.join(locale.text("filter.and"))
        end

        def batch_state(status)
          if status.success? then [t("progress.state_succeeded"), "good"]
          elsif status.death? then [status.complete? ? t("progress.state_complete_died") : t("progress.state_died"), "bad"]
          elsif status.complete? then [t("progress.state_complete_failures"), "warn"]
          else [t("progress.state_running"), nil]
          end
        end
      end
    end
  end
end
