# frozen_string_literal: true

module Deckhand
  class Config
    # Fair queues: a queue whose jobs are served in fair shares per tenant,
    # so one tenant's 100,000 jobs do not put every other tenant behind them
    # (docs/fair-queues.md). `by` names a job's tenant from its payload at
    # push time; `weights` gives a tenant more than one share (3: three jobs
    # for every one of a tenant of weight 1, while both have work).
    #
    #   Deckhand.configure do |c|
    #     c.fair_queues = {"reports" => {by: ->(job) { job["args"].first["account_id"] }, weights: {"big_customer" => 3}}}
    #   end
    #   ReportJob.set(tenant: "acme").perform_async(7) # a tenant named per push, in a fair queue
    class FairQueues
      # The settings of one fair queue.
      KEYS = %i[by weights].freeze
      # Bytes of a tenant's name at most.
      MAX_TENANT = 200

      # One queue's settings: the tenant of a job (nil when none: the job
      # waits in the queue itself, ahead of the tenants') and the weights.
      Setting = Struct.new(:by, :weights)
      private_constant :Setting

      # A tenant name as a job carries it: a String of 1 to MAX_TENANT
      # characters without a newline (Symbols and Integers are turned into
      # Strings). Raises InvalidJob naming the fix.
      def self.tenant!(value, where)
        name = (value.is_a?(Symbol) || value.is_a?(Integer)) ? value.to_s : value
        return name if name.is_a?(String) && !name.empty? && name.size <= MAX_TENANT && !name.include?("\n")
        raise InvalidJob, "#{where}: tenant #{value.inspect} is not valid; give a non-empty String (or Symbol, Integer) " \
          "of at most #{MAX_TENANT} characters without a newline"
      end

      def initialize(queues = {})
        raise ConfigError, "fair_queues must be a Hash of queue name => {by:, weights:}, got #{queues.inspect}" unless queues.is_a?(Hash)
        @queues = queues.to_h { |name, spec| [name.to_s, queue!(name.to_s, spec)] }.freeze
        freeze
      end

      # The fair queues' names.
      def names = @queues.keys

      # True when the queue names its jobs' tenants with `by`.
      def by?(queue) = !@queues[queue]&.by.nil?

      # True for a queue listed here: only its jobs take fair shares. A
      # "tenant" in the payload of another queue's job is data like any
      # other, and the job goes to the back of its queue, where a Sidekiq
      # process sharing the Redis finds it too.
      def fair?(queue) = @queues.key?(queue)

      # No queue is fair: a push need not look at its jobs' tenants.
      def none? = @queues.empty?

      # The tenant of a job of a fair queue: its own "tenant", else what the
      # queue's `by` says; nil for any other queue's job.
      def tenant(job)
        return nil if @queues.empty?
        setting = @queues[job["queue"]] or return nil
        return self.class.tenant!(job["tenant"], "#{job["class"]} in fair queue #{job["queue"].inspect}") unless job["tenant"].nil?
        by = setting.by or return nil
        tenant = by.call(job)
        tenant.nil? ? nil : self.class.tenant!(tenant, "fair_queues[#{job["queue"].inspect}] by:")
      end

      # How far one job moves the tenant's virtual time: 1 / its weight.
      def step(queue, tenant)
        weight = @queues[queue]&.weights&.[](tenant)
        weight ? 1.0 / weight : 1.0
      end

      private

      def queue!(name, spec)
        spec = {} if spec == true
        raise ConfigError, "fair_queues[#{name.inspect}] must be a Hash like {by: ->(job) { ... }, weights: {...}}, got #{spec.inspect}" unless spec.is_a?(Hash)
        spec = spec.transform_keys(&:to_sym)
        unknown = spec.keys - KEYS
        raise ConfigError, "fair_queues[#{name.inspect}]: unknown key #{unknown.first.inspect}; known: #{KEYS.join(", ")}" unless unknown.empty?
        by = spec[:by]
        raise ConfigError, "fair_queues[#{name.inspect}] by: must answer call(job) with the tenant's name, got #{by.inspect}" unless by.nil? || by.respond_to?(:call)
        Setting.new(by, weights!(name, spec.fetch(:weights, {}))).freeze
      end

      def weights!(name, weights)
        raise ConfigError, "fair_queues[#{name.inspect}] weights: must be a Hash of tenant => weight, got #{weights.inspect}" unless weights.is_a?(Hash)
        weights.to_h do |tenant, weight|
          unless weight.is_a?(Numeric) && weight.positive? && weight <= 1000
            raise ConfigError, "fair_queues[#{name.inspect}] weights: #{tenant.inspect} => #{weight.inspect} is not valid; give a number above 0, at most 1000"
          end
          [tenant.to_s, weight.to_f]
        end.freeze
      end
    end
  end
end
