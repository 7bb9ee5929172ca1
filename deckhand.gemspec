# frozen_string_literal: true

require_relative "lib/deckhand/version"

Gem::Specification.new do |spec|
  spec.name = "deckhand"
  spec.version = Deckhand::VERSION
  spec.summary = "Fast, reliable background jobs for Ruby on Redis, wire-compatible with Sidekiq"
  spec.description = <<~TEXT
    Deckhand runs background jobs on threads and processes, backed by Redis. It reads
    and writes Sidekiq's Redis layout and job JSON, fetches reliably (a crashed process
    never loses a job), batches its round trips to Redis, and ships batches, unique
    jobs, rate limits, cron and a multi-process swarm in the open.
  TEXT
  spec.license = "MIT"
  spec.authors = ["The Deckhand authors"]
  spec.homepage = "https://github.com/deckhand-rb/deckhand"
  spec.required_ruby_version = ">= 3.1"

  spec.files = Dir["lib/**/*.{rb,lua,erb,css,js,svg,txt}", "exe/*", "README.md", "CHANGES.md", "LICENSE", "docs/*.md"]
  spec.bindir = "exe"
  spec.executables = ["deckhand"]
  spec.require_paths = ["lib"]

  spec.add_dependency "connection_pool", ">= 2.4"
  spec.add_dependency "json", ">= 2.10"
  spec.add_dependency "redis-client", ">= 0.22"

  spec.metadata["rubygems_mfa_required"] = "true"
  spec.metadata["changelog_uri"] = "#{spec.homepage}/blob/main/CHANGES.md"
end
