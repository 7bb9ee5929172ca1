# frozen_string_literal: true

namespace :release do
  desc "Builds the gem, installs it into an empty GEM_HOME and runs a job with it (docs/releases.md)"
  task :check do
    ruby File.expand_path("../bin/release-check", __dir__)
  end
end
