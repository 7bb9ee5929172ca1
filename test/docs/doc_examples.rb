# frozen_string_literal: true

module Deckhand
  # The ```ruby blocks of the README and the guides, read from the Markdown,
  # each with the name of the `<!-- example: NAME -->` line just above it
  # (nil when unmarked), its file and the line its code starts on.
  #
  #   DocExamples.blocks.size                  # => 70
  #   DocExamples.fetch("readme-job").code     # => "# app/jobs/welcome_email_job.rb\nclass ..."
  module DocExamples
    ROOT = File.expand_path("../..", __dir__)
    DOCS = ["README.md", *Dir[File.join(ROOT, "docs", "*.md")].map { |f| "docs/#{File.basename(f)}" }].sort.freeze
    Block = Struct.new(:name, :file, :line, :code) do
      def path = File.join(ROOT, file)
    end

    module_function

    def blocks
      @blocks ||= DOCS.flat_map do |file|
        lines = File.readlines(File.join(ROOT, file), chomp: true)
        lines.each_index.filter_map do |i|
          next unless lines[i] == "```ruby"
          last = (i + 1...lines.size).find { |j| lines[j].start_with?("```") }
          name = lines[i - 1][/\A<!-- example: ([\w-]+) -->\z/, 1] if i.positive?
          Block.new(name, file, i + 2, lines[i + 1...last].join("\n") + "\n")
        end
      end
    end

    def named = @named ||= blocks.select(&:name).to_h { |block| [block.name, block] }

    def fetch(name) = named.fetch(name) { raise KeyError, "no example named #{name} in the docs" }
  end
end
