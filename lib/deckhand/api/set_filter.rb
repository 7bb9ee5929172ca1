# frozen_string_literal: true

require "json"

module Deckhand
  class API
    # What a retry, scheduled or dead set is filtered by: a job class, an error
    # class and a text, all at once. The classes match their exact JSON field,
    # so "MailJob" finds neither "MailJobV2" nor an argument that says
    # "MailJob"; an Active Job goes by the class it runs (`wrapped`).
    #
    #   f = SetFilter.new(job_class: "MailJob", error: "Net::ReadTimeout")
    #   api.retries.filter(f.texts)          # entries holding every text
    #   api.retries.retry_matching(f.texts)
    #   f.params  # => {class: "MailJob", error: "Net::ReadTimeout"}
    class SetFilter
      attr_reader :text, :error, :job_class, :wrapped

      def initialize(text: "", error: "", job_class: "", wrapped: "")
        @text = text.to_s
        @error = error.to_s
        @job_class = job_class.to_s
        @wrapped = wrapped.to_s
      end

      # The texts an entry must all contain; empty for no filter.
      def texts
        [
          field("error_class", @error), field("class", @job_class), field("wrapped", @wrapped), @text
        ].reject(&:empty?)
      end

      # Whether the filter holds no text (it matches every entry).
      def empty? = texts.empty?

      # The filter as query parameters (the empty ones left out).
      def params
        {class: @job_class, wrapped: @wrapped, error: @error, q: @text}.reject { |_, v| v.empty? }
      end

      # Words for the filter: with error Net::ReadTimeout, of class MailJob, that contain “x”.
      def describe
        parts = []
        parts << "with error #{@error}" unless @error.empty?
        parts << "of class #{@job_class}" unless @job_class.empty?
        parts << "of class #{@wrapped} (Active Job)" unless @wrapped.empty?
        parts << "that contain “#{@text}”" unless @text.empty?
        parts.join(", ")
      end

      private

      def field(name, value) = value.empty? ? "" : "\"#{name}\":#{JSON.generate(value)}"
    end
  end
end
