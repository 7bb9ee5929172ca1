# frozen_string_literal: true

module Torture
  # libfaketime (Debian's faketime package; bin/setup installs it), preloaded
  # into one server process so that its wall clock reads `seconds` ahead of
  # the host's (behind, when negative), as on a host whose clock drifted:
  # Time.now and CLOCK_REALTIME skewed, the monotonic clock left alone. The
  # library is preloaded directly, not through the `faketime` command, which
  # would stand between the fleet and the server's pid and take its SIGKILL.
  #
  #   fleet.spawn(env: Torture::Faketime.env(400))   # a server 400 s ahead
  module Faketime
    LIBRARY = "libfaketime.so.1"
    PLACES = ["/usr/lib/*/faketime/#{LIBRARY}", "/usr/lib/faketime/#{LIBRARY}", "/usr/local/lib/faketime/#{LIBRARY}"].freeze

    module_function

    def env(seconds)
      preload = [library, ENV["LD_PRELOAD"]].compact.reject(&:empty?).join(" ")
      {"LD_PRELOAD" => preload, "FAKETIME" => format("%+d", seconds), "FAKETIME_DONT_FAKE_MONOTONIC" => "1"}
    end

    # TORTURE_FAKETIME_LIB, else the first of PLACES found.
    def library
      path = ENV["TORTURE_FAKETIME_LIB"] || PLACES.flat_map { |pattern| Dir[pattern] }.first
      return path if path && File.file?(path)
      raise "the clock-skew scenario runs a server under libfaketime, and #{LIBRARY} is not in #{PLACES.join(", ")}: " \
        "install it (Debian/Ubuntu: apt-get install faketime; bin/setup does) or set TORTURE_FAKETIME_LIB to its path"
    end
  end
end
