# frozen_string_literal: true

module Deckhand
  module Migration
    # One thing the migration check found: its verdict (:works, :change or
    # :unsupported), what it is, where (files), and what to do.
    #
    #   Finding.new(:change, "gem sidekiq 7.3.10", ["Gemfile.lock"], "replace it with ...")
    Finding = Struct.new(:verdict, :what, :where, :advice) do
      def line
        places = where.first(3).join(", ")
        places += " and #{where.size - 3} more" if where.size > 3
        "#{what}#{" (#{places})" unless where.empty?}#{": #{advice}" if advice}"
      end
    end
  end
end
