# frozen_string_literal: true

require_relative "lib/deckhand/version"

Gem::Specification.new do |spec|
  spec.name = "deckhand"
  spec.version = Deckhand::VERSION
  spec.summary = "Fast, reliable background jobs for Ruby on Redis, wire-compatible with Sidekiq"
  spec.description = <<~TEXT
    Deckhand runs background jobs on threads and processes, backed by Redis, and reads
    and writes Sidekiq's Redis layout and job JSON. It fetches reliably (the jobs of a
    process that dies are recovered by the live ones, poison pills quarantined), retries
    with backoff, runs scheduled jobs on time, and ships batches with callbacks, a
    multi-process swarm, a dashboard, an Active Job adapter for Rails and test helpers.
  TEXT
  spec.license = "MIT"
  spec.authors = ["The Deckhand authors"]
  spec.required_ruby_version = ">= 3.1"

  # What users run and read; bench/, torture/ and test/ stay in the checkout
  # (test/unit/gemspec_test.rb holds the line).
  spec.files = Dir["lib/**/*.{rb,lua,erb,css,js,svg,txt,yml}", "exe/*", "README.md", "CHANGES.md", "LICENSE", "docs/*.md",
    base: __dir__]
  spec.bindir = "exe"
  spec.executables = ["deckhand"]
  spec.require_paths = ["lib"]

  # Each bounded below the next major version the suite has not run on:
  # connection_pool 2.5 and 3.0 (Gemfile.lock, gemfiles/current.gemfile.lock),
  # json 2.6 to 3.1, redis-client 0.x (test/unit/gemspec_test.rb holds it).
  spec.add_dependency "connection_pool", ">= 2.4", "< 4"
  # 2.6 is the json Ruby 3.1 ships, which many Rails applications keep
  # locked; the suite runs Deckhand on it (test/unit/payload/json_floor_test.rb).
  spec.add_dependency "json", ">= 2.6", "< 4"
  spec.add_dependency "redis-client", ">= 0.22", "< 1"

  # Not published yet: the README's Install section names this placeholder
  # too; put the real address in both when the repository is public.
  repository = "https://github.com/OWNER/deckhand"
  # The homepage is the repository: a homepage_uri repeating it would make
  # newer RubyGems warn that two keys share one address.
  spec.homepage = repository
  spec.metadata["source_code_uri"] = repository
  spec.metadata["changelog_uri"] = "#{repository}/blob/main/CHANGES.md"
  spec.metadata["documentation_uri"] = "#{repository}/tree/main/docs"
  spec.metadata["bug_tracker_uri"] = "#{repository}/issues"
  spec.metadata["rubygems_mfa_required"] = "true"
end
