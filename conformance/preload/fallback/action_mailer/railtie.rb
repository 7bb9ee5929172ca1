# frozen_string_literal: true

# The Rails app in Sidekiq's test/dummy requires action_mailer/railtie and
# uses nothing of it; the bundle has no actionmailer (see ../action_mailer.rb).
require "action_mailer"
