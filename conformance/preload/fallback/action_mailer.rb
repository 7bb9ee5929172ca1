# frozen_string_literal: true

# Sidekiq's api_test.rb requires action_mailer only to define a mailer class
# whose name its payloads carry. The bundle has no actionmailer, so this
# stands in when no real one is on the load path (it is searched last).
module ActionMailer
  class Base
  end
end
