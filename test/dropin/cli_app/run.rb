# frozen_string_literal: true

# A sidekiq executable as a custom bin/sidekiq writes it, run by
# test/dropin/sidekiq_cli_test.rb in drop-in mode.
require "sidekiq/cli"

cli = Sidekiq::CLI.instance
cli.parse
exit(cli.run || 0)
