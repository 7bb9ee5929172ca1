# frozen_string_literal: true

require "ferrum"
require "net/http"
require "fileutils"

module Deckhand
  # A real dashboard (`deckhand web` as a child process, on a free port, reading
  # the test Redis) and one headless Chromium for all the browser tests of a
  # run, both stopped when the run ends.
  module BrowserHarness
    ROOT = File.expand_path("../..", __dir__)
    SCREENSHOTS = File.join(ROOT, "tmp/screenshots")
    CHROMIUM = ENV.fetch("CHROMIUM", "/usr/bin/chromium")
    MISSING = "no Chromium at #{CHROMIUM}: bin/setup installs it (Debian package chromium), or set CHROMIUM=/path/to/chrome"
    FLAGS = %w[no-sandbox disable-gpu disable-background-networking disable-component-update disable-sync
      no-first-run disable-dev-shm-usage].to_h { |flag| [flag, nil] }.freeze

    class << self
      def url
        @url ||= start_server
      end

      def browser
        @browser ||= begin
          raise MISSING unless chromium?
          Ferrum::Browser.new(browser_path: CHROMIUM, browser_options: FLAGS, window_size: [1280, 900],
            timeout: 15, process_timeout: 30)
        end
      end

      def chromium? = File.executable?(CHROMIUM)

      # Outside CI, a machine without Chromium skips the browser tests and
      # says so once; in CI (CI set) they fail: there they must run.
      def require_chromium!(test)
        return if chromium?
        test.flunk("#{MISSING} (CI is set: the browser tests must run)") if ENV["CI"] && !ENV["CI"].empty?
        unless @skip_announced
          @skip_announced = true
          warn "Browser tests skipped: #{MISSING}"
        end
        test.skip(MISSING)
      end

      def stop
        @browser&.quit
        @browser = nil
        return unless @pid
        ::Process.kill("TERM", @pid)
        ::Process.wait(@pid)
      rescue Errno::ESRCH, Errno::ECHILD
        nil
      ensure
        @pid = nil
      end

      private

      def start_server
        port = DevRedis.free_port
        log = File.join(ROOT, "tmp/browser-web.log")
        FileUtils.mkdir_p(File.dirname(log))
        code = 'require "deckhand/cli/web_command"; exit Deckhand::CLI::WebCommand.run(ARGV)'
        @pid = ::Process.spawn({"REDIS_URL" => RedisHarness.url}, RbConfig.ruby, "-I#{ROOT}/lib", "-e", code, "--", "-p", port.to_s,
          out: log, err: log, in: File::NULL)
        Minitest.after_run { stop }
        url = "http://127.0.0.1:#{port}"
        wait_until_up(url, log)
        url
      end

      def wait_until_up(url, log)
        deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + 20
        loop do
          return if Net::HTTP.get_response(URI("#{url}/stats.json")).code == "200"
        rescue SystemCallError, EOFError
          raise "deckhand web did not start: #{File.read(log)}" if ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) > deadline || ::Process.waitpid(@pid, ::Process::WNOHANG)
          sleep 0.05
        end
      end
    end

    def setup
      super
      BrowserHarness.require_chromium!(self)
    end

    # Opens a page in a fresh tab that records console errors, uncaught
    # exceptions and policy violations; fails the test if any appear.
    def visit(path)
      @page&.close
      @problems = []
      @page = BrowserHarness.browser.create_page
      @page.on("Runtime.exceptionThrown") { |event| @problems << "exception: #{event.dig("exceptionDetails", "exception", "description") || event["exceptionDetails"]}" }
      @page.on("Runtime.consoleAPICalled") { |event| @problems << "console.#{event["type"]}: #{event["args"].map { |a| a["value"] || a["description"] }.join(" ")}" if %w[error assert warning].include?(event["type"]) }
      @page.on("Log.entryAdded") { |event| @problems << "log #{event.dig("entry", "level")}: #{event.dig("entry", "text")}" if %w[error warning].include?(event.dig("entry", "level")) }
      @page.on(:dialog) { |dialog| dialog.accept }
      @page.go_to("#{BrowserHarness.url}#{path}")
      @page
    end

    def page = @page

    attr_reader :loads

    # Counts the tab's page loads from now on (a form's POST and the
    # redirect after it end in one load event).
    def count_loads
      @loads = 0
      page.on("Page.loadEventFired") { @loads += 1 }
    end

    # Clicks the first element `selector` finds and waits for the page load
    # it starts: the story's page loads are counted one click at a time.
    def click_to_load(selector)
      before = loads
      page.at_css(selector).scroll_into_view.click
      wait_for(message: "the page load after clicking #{selector}") { loads > before }
    end

    def assert_no_browser_problems
      assert_empty @problems, "console errors, exceptions or policy violations on #{@page.current_url}"
    end

    # True when the first element `selector` finds is laid out inside the
    # viewport's width (a phone's 390 px): "missing" when there is none.
    def in_view?(selector)
      @page.evaluate(<<~JS)
        (function () {
          var el = document.querySelector(#{JSON.generate(selector)});
          if (!el) return "missing";
          var box = el.getBoundingClientRect();
          return box.width > 0 && box.left >= 0 && box.right <= window.innerWidth;
        })()
      JS
    end

    def screenshot(name)
      FileUtils.mkdir_p(SCREENSHOTS)
      @page.screenshot(path: File.join(SCREENSHOTS, "#{name}.png"), full: true)
    end

    def close_page
      @page&.close
      @page = nil
    end
  end
end
