# frozen_string_literal: true

module Deckhand
  module Payload
    # Refuses, at push time, args that would not survive the trip through JSON
    # unchanged: a Symbol comes back a String, a Time comes back a String, a
    # Hash with Symbol keys comes back with String keys. Better to fail in the
    # caller, with the fix in the message, than in the job an hour later.
    module Validator
      MAX_DEPTH = 64

      module_function

      # item: the index of these args in a bulk push, named in the error.
      def check_args!(args, klass, item: nil)
        raise InvalidJob, "args for #{klass} must be an Array, got #{args.class}: pass perform_async(a, b), or \"args\" => [a, b]" unless args.is_a?(Array)
        return if args.all? { |arg| native?(arg, 0) } # the common case: no strings built
        label = item ? "#{klass} bulk push item #{item}:" : klass
        args.each_with_index { |arg, i| check!(arg, "args[#{i}]", label, 0) }
      end

      # "a" or "an" before a class or encoding name ("an Object", "a UTF-8 String").
      def article(word) = word.to_s.match?(/\A[AEIOaeio]/) ? "an" : "a"

      # The quick answer, allocating nothing; check! explains a false one.
      # Tests ordered by how often job args hold each type.
      def native?(value, depth)
        if value.is_a?(String) then text?(value)
        elsif value.is_a?(Integer) || value.nil? || value == true || value == false then true
        elsif value.is_a?(Hash)
          return false if depth >= MAX_DEPTH
          value.each_pair { |k, v| return false unless k.is_a?(String) && text?(k) && native?(v, depth + 1) }
          true
        elsif value.is_a?(Array)
          return false if depth >= MAX_DEPTH
          value.each { |v| return false unless native?(v, depth + 1) }
          true
        elsif value.is_a?(Float) then value.finite?
        else false
        end
      end

      def text?(string) = string.valid_encoding? && (string.encoding != Encoding::BINARY || string.ascii_only?)

      def check!(value, path, klass, depth)
        raise InvalidJob, "#{klass} #{path} nests deeper than #{MAX_DEPTH} levels; flatten it" if depth > MAX_DEPTH
        case value
        when nil, true, false, Integer then nil
        when Float
          raise InvalidJob, "#{klass} #{path} is #{value}, which JSON cannot carry; pass a finite number or nil" unless value.finite?
        when String then check_string!(value, path, klass)
        when Array then value.each_with_index { |v, i| check!(v, "#{path}[#{i}]", klass, depth + 1) }
        when Hash then check_hash!(value, path, klass, depth)
        else raise InvalidJob, unsupported(value, path, klass)
        end
      end

      def check_string!(value, path, klass)
        return if value.valid_encoding? && (value.encoding != Encoding::BINARY || value.ascii_only?)
        raise InvalidJob, "#{klass} #{path} is #{article(value.encoding)} #{value.encoding} String that is not valid text; " \
          "encode binary data first (Base64.strict_encode64) and decode it in perform"
      end

      def check_hash!(hash, path, klass, depth)
        hash.each do |key, v|
          unless key.is_a?(String)
            raise InvalidJob, "#{klass} #{path} has the #{key.class} key #{key.inspect}; JSON turns hash keys into " \
              "Strings, so use String keys (hash.transform_keys(&:to_s))"
          end
          check!(v, "#{path}[#{key.inspect}]", klass, depth + 1)
        end
      end

      def unsupported(value, path, klass)
        hint = case value
        when Symbol then "pass the String #{value.to_s.inspect} instead"
        when Time then "pass value.to_i (epoch seconds) or value.iso8601 and parse it in perform"
        when Numeric then "pass value.to_s and convert it back in perform"
        else "pass an id (or the String/Integer/Hash that rebuilds it) and load the object in perform"
        end
        "#{klass} #{path} is #{article(value.class)} #{value.class} (#{value.inspect[0, 60]}), which is not JSON-native: #{hint}. " \
          "Job args must be nil, true, false, Integer, Float, String, Array or Hash with String keys"
      end
    end
  end
end
