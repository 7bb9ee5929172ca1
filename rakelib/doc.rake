# frozen_string_literal: true

# The API reference of the public surface (.yardopts: which files; what is
# marked :nodoc: is left out). doc/ is not checked in.
desc "Writes the API reference (YARD) of the public surface into doc/"
task :doc do
  ruby Gem.bin_path("yard", "yard"), "doc", "--no-save", "--no-cache"
end

namespace :doc do
  desc "Fails naming each undocumented class, module, method or constant of the public surface"
  task :check do
    require_relative "yard/reference_check"
    passed, report = ReferenceCheck.new.run
    puts report
    abort "rake doc:check: the API reference has gaps (above)" unless passed
  end
end
