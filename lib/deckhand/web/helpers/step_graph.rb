# frozen_string_literal: true

module Deckhand
  class Web
    module Helpers
      # A workflow's steps drawn as inline SVG: one row per level (level 0
      # waits for nothing), a box per step in its state's colour, a line
      # from each parent to its step. Sized by attributes and styled by
      # class, so it needs no inline style under the page's policy; every
      # text escaped (a translated text by #t). A level wider than PER_LEVEL shows that many, those
      # that need a look first (dead, failed, retrying, running), and a box
      # counting the rest. A sub-workflow's box is dashed, and a step in one
      # says which in its title.
      #
      #   step_graph(api.workflow(id))   # => <svg class="step-graph" ...>...</svg>
      module StepGraph
        PER_LEVEL = 6
        FIRST = %w[dead failed retrying running queued waiting cancelled succeeded].freeze
        BOX_W = 150
        BOX_H = 44
        GAP_X = 20
        GAP_Y = 46

        def step_graph(record)
          @sub_names = record.steps.select(&:sub_workflow?).to_h { |group| [group.jid, group.name] }
          levels = record.levels.map do |steps|
            [steps.sort_by.with_index { |step, i| [FIRST.index(step.state) || FIRST.size, i] }.first(PER_LEVEL), steps.size - PER_LEVEL]
          end
          columns = levels.map { |shown, more| shown.size + (more.positive? ? 1 : 0) }.max.to_i
          width = [columns, 1].max * (BOX_W + GAP_X) + GAP_X
          height = levels.size * (BOX_H + GAP_Y) + GAP_Y - BOX_H / 2
          at = {}
          boxes = levels.each_with_index.flat_map do |(shown, more), row|
            y = GAP_Y / 2 + row * (BOX_H + GAP_Y)
            drawn = shown.each_with_index.map do |step, col|
              x = GAP_X + col * (BOX_W + GAP_X)
              at[step.jid] = [x + BOX_W / 2, y]
              step_box(step, x, y)
            end
            drawn << more_box(more, GAP_X + shown.size * (BOX_W + GAP_X), y) if more.positive?
            drawn
          end
          edges = levels.flat_map(&:first).flat_map do |step|
            to = at[step.jid]
            step.parents.filter_map { |parent| (from = at[parent]) && %(<line class="edge" x1="#{from[0]}" y1="#{from[1] + BOX_H}" x2="#{to[0]}" y2="#{to[1]}"/>) }
          end
          label = t("workflows.graph", steps: number(record.counts["total"]), levels: number(levels.size))
          html(%(<svg class="step-graph" width="#{width}" height="#{height}" viewBox="0 0 #{width} #{height}" role="img" aria-label="#{label}">) +
            %(<title>#{label}</title>#{edges.uniq.join}#{boxes.join}</svg>))
        end

        # A workflow's or a step's state in words; a state this version does not know, as Redis has it.
        def state_words(state)
          locale.key?("workflows.state_#{state}") ? t("workflows.state_#{state}") : state
        end

        private

        def step_box(step, x, y)
          what = step.sub_workflow? ? t("workflows.sub_workflow") : h(step.job_class)
          within = step.within ? ", #{t("workflows.within", name: @sub_names[step.within].to_s)}" : ""
          %(<a href="#step-#{h(step.jid)}" class="step #{h(step.state)}#{" sub-workflow" if step.sub_workflow?}">) +
            %(<title>#{h(step.name)} (#{what}#{within}): #{h(state_words(step.state))}</title>) +
            %(<rect x="#{x}" y="#{y}" width="#{BOX_W}" height="#{BOX_H}" rx="6"/>) +
            %(<text x="#{x + 8}" y="#{y + 18}" class="name">#{h(truncate(step.name, 20))}</text>) +
            %(<text x="#{x + 8}" y="#{y + 35}" class="state">#{h(state_words(step.state))}</text></a>)
        end

        def more_box(more, x, y)
          %(<g class="step more"><rect x="#{x}" y="#{y}" width="#{BOX_W}" height="#{BOX_H}" rx="6"/>) +
            %(<text x="#{x + 8}" y="#{y + 27}" class="name">#{t("workflows.more", n: number(more))}</text></g>)
        end
      end
    end
  end
end
