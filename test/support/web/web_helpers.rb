# frozen_string_literal: true

require "deckhand/web"

module Deckhand
  # Drives Deckhand::Web through Rack, as a browser would: pages are asked
  # for as HTML (a browser's Accept), same-origin POSTs say so in
  # Sec-Fetch-Site, unless a test says otherwise.
  module WebHelpers
    BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    def web_app(**options) = Deckhand::Web.new(config: Deckhand.config, **options)

    def get(path, app: web_app, headers: {}) = Rack::MockRequest.new(app).get(path, {"HTTP_ACCEPT" => BROWSER_ACCEPT}.merge(headers))

    # A same-origin form POST: post("/queues/mail", "action" => "pause").
    def post(path, params = {}) = post_from(path, params)

    def post_from(path, params, app: web_app, site: "same-origin", headers: {})
      env = {params: params}
      env["HTTP_SEC_FETCH_SITE"] = site if site
      Rack::MockRequest.new(app).post(path, env.merge(headers))
    end

    def api = Deckhand::API.new(Deckhand.config)

    def retry_job(jid, **extra)
      {"class" => "RecordJob", "args" => [jid], "jid" => jid, "queue" => "default", "retry" => true, "retry_count" => 2,
       "error_class" => "RuntimeError", "error_message" => "boom", "failed_at" => Deckhand::Payload.now}.merge(extra)
    end

    def add_to(set, job, score: Time.now.to_f) = redis.call("ZADD", set, score, JSON.generate(job))

    def key_of(set_name, jid) = api.job_set(set_name).find_jid(jid).key

    # A 303 to `to`; with `notice:` ("deleted.3"), the one-time notice cookie it sets.
    def assert_redirect(response, to, notice: nil)
      assert_equal 303, response.status, response.body
      assert_equal to, response.headers["location"]
      assert_equal notice, notice_cookie(response), "notice cookie" if notice
    end

    def notice_cookie(response)
      Array(response.headers["set-cookie"]).join("\n")[/deckhand_notice=([^;]*)/, 1]
    end

    # The page a redirect leads to, with the notice cookie it set, as a browser follows it.
    def follow(response, app: web_app)
      cookie = notice_cookie(response)
      get(response.headers["location"], app: app, headers: cookie ? {"HTTP_COOKIE" => "deckhand_notice=#{cookie}"} : {})
    end
  end
end
