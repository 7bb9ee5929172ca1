# frozen_string_literal: true

module ActiveJob
  module QueueAdapters
    class DeckhandAdapter
      # An Active Job class's chunks (docs/chunks.md): a class that declares
      # `deckhand_options chunk: {...}` (extending Deckhand::Job::Declarations)
      # and defines perform_chunk gets its members deserialized, each member's
      # arguments as its own perform would get them, and its job Hash the
      # Deckhand job (its "jid", "retry_count"). The server gathers the
      # wrapper's jobs by the class they wrap. perform_chunk runs without
      # Active Job's perform callbacks and its retry_on / discard_on: each
      # member that fails retries by its deckhand_options, as a job whose
      # error Active Job did not handle.
      #
      #   ChunkRun.options(payload)   # => the wrapped class's chunk options, or nil
      #   ChunkRun.call(chunk)        # the wrapper's chunk of [job_data] members
      module ChunkRun
        module_function

        # Asked of every wrapped job a server takes: one constant lookup.
        def options(payload)
          wrapped = payload["wrapped"]
          klass = wrapped.is_a?(String) ? Object.const_get(wrapped) : nil
          Deckhand::Chunk.of(klass) if klass.is_a?(Class) && klass <= Base
        rescue NameError, LoadError # left to Active Job, which names the problem
          nil
        end

        # Deserializes each member (one that cannot be fails alone), runs the
        # first member's instance's perform_chunk over them all, and carries
        # each member's failure and result (Chunk#result) back to the
        # wrapper's chunk.
        def call(chunk)
          jobs = chunk.each.filter_map do |(job_data), job|
            [deserialize(job_data, job["jid"]), job]
          rescue => e
            chunk.fail(job, e)
            nil
          end
          return if jobs.empty?
          inner = Deckhand::Chunk.new(jobs.map { |instance, job| [instance.arguments, job] })
          instance = jobs.first.first
          Deckhand::Chunk.check!(instance)
          instance.perform_chunk(inner)
          jobs.each { |_, job| (error = inner.failure(job["jid"])) && chunk.fail(job, error) }
          inner.results.each { |jid, value| chunk.result(jid, value) }
        end

        def deserialize(job_data, jid)
          JobWrapper.active_job!(job_data["job_class"])
          job = Base.deserialize(job_data.merge(JobWrapper::PROVIDER_JOB_ID => jid))
          job.send(:deserialize_arguments_if_needed)
          job
        end
      end
    end
  end
end
