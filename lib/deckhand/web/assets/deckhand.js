/*
 * Deckhand dashboard behaviour: live counters and throughput chart, history
 * and metrics charts, check-all boxes, confirmations. Everything it needs is
 * in data- attributes; the pages work without it, minus the charts.
 */
(function () {
  "use strict";

  var LIVE_POINTS = 60;

  function parse(json, fallback) {
    try { return JSON.parse(json); } catch (e) { return fallback; }
  }

  // A count as the page's language writes it: the server's thousands
  // separator (<html data-delimiter>), the same digits, so a refreshed
  // number reads like the ones the server wrote.
  function count(value) {
    var delimiter = document.documentElement.getAttribute("data-delimiter");
    if (delimiter === null) delimiter = ",";
    var n = Math.trunc(Number(value));
    var digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, delimiter);
    return n < 0 ? "-" + digits : digits;
  }

  // The chart's series names, in the page's language (data-series), else English.
  function names(chart, fallback) {
    var given = parse(chart.getAttribute("data-series"), null);
    return Array.isArray(given) && given.length === fallback.length ? given : fallback;
  }

  // The live chart's points: one per minute (or hour, data-step seconds),
  // first the stored ones the page came with (data-history: [start epoch,
  // processed, failed], oldest first, the current one last), then what each
  // poll counts added to the point its time falls in. A new minute shifts
  // the oldest out, so the window keeps its length.
  function throughput(chart) {
    var step = Math.max(1, parseInt(chart && chart.getAttribute("data-step"), 10) || 60);
    var starts = [], processed = [], failed = [];
    (chart ? parse(chart.getAttribute("data-history"), []) : []).forEach(function (point) {
      if (!Array.isArray(point) || point.length !== 3) return;
      starts.push(Number(point[0])); processed.push(Number(point[1]) || 0); failed.push(Number(point[2]) || 0);
    });
    var size = starts.length || LIVE_POINTS;

    function label(start) {
      var iso = new Date(start * 1000).toISOString();
      return step >= 3600 ? iso.slice(8, 10) + " " + iso.slice(11, 16) : iso.slice(11, 16);
    }

    function add(time, more, fails) {
      var start = Math.floor(time / step) * step;
      var last = starts.length ? starts[starts.length - 1] : null;
      if (last === null || start > last) {
        // Minutes no poll saw (a hidden tab, a sleeping laptop) count zero;
        // a jump longer than the window starts it afresh.
        if (last === null || (start - last) / step > size) { starts = []; processed = []; failed = []; last = start - step; }
        for (var next = last + step; next <= start; next += step) { starts.push(next); processed.push(0); failed.push(0); }
        while (starts.length > size) { starts.shift(); processed.shift(); failed.shift(); }
      }
      var i = starts.indexOf(start);
      if (i < 0) i = starts.length - 1; // a poll timed before the last point: counted in it
      processed[i] += more; failed[i] += fails;
    }

    return {
      add: add,
      size: function () { return starts.length; },
      options: function (names) {
        return { type: "line", labels: starts.map(label), series: [[names[0], processed.slice()], [names[1], failed.slice()]], height: 200 };
      }
    };
  }

  // Polls the stats JSON, refreshes the counters and adds what each poll
  // counts (jobs processed and failed since the previous one) to the chart.
  function live() {
    var box = document.querySelector("[data-stats-src]");
    if (!box) return;
    var chart = document.querySelector("[data-live-chart]");
    var interval = Math.max(1, parseInt(box.getAttribute("data-interval"), 10) || 5) * 1000;
    var last = chart ? { processed: Number(chart.getAttribute("data-processed")), failed: Number(chart.getAttribute("data-failed")) } : null;
    var points = throughput(chart);

    function plot() {
      if (!chart) return;
      chart.setAttribute("data-points", String(points.size()));
      window.DeckhandCharts.draw(chart, points.options(names(chart, ["Processed", "Failed"])));
    }

    function record(stats) {
      Object.keys(stats).forEach(function (field) {
        var cell = box.querySelector('[data-stat="' + field + '"]');
        if (cell) cell.textContent = count(stats[field]);
      });
      if (last) points.add(stats.time, Math.max(0, stats.processed - last.processed), Math.max(0, stats.failed - last.failed));
      last = { processed: stats.processed, failed: stats.failed };
      plot();
    }

    function poll() {
      fetch(box.getAttribute("data-stats-src"), { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (stats) {
          box.classList.toggle("stale", !stats);
          if (stats) record(stats);
        }, function () { box.classList.add("stale"); })
        .then(function () { setTimeout(poll, interval); });
    }

    plot();
    setTimeout(poll, interval);
  }

  function history() {
    var chart = document.querySelector("[data-history-chart]");
    if (!chart) return;
    var days = parse(chart.getAttribute("data-history-chart"), []);
    var label = names(chart, ["Succeeded", "Failed"]);
    window.DeckhandCharts.draw(chart, {
      type: days.length > 90 ? "line" : "bars",
      labels: days.map(function (d) { return d[0]; }),
      series: [[label[0], days.map(function (d) { return d[1] - d[2]; })], [label[1], days.map(function (d) { return d[2]; })]],
      height: 220
    });
  }

  function charts() {
    document.querySelectorAll("[data-chart]").forEach(function (chart) {
      window.DeckhandCharts.draw(chart, {
        type: chart.getAttribute("data-chart"),
        labels: parse(chart.getAttribute("data-labels"), []),
        series: parse(chart.getAttribute("data-series"), []),
        height: 200
      });
    });
  }

  function checkAll() {
    document.querySelectorAll("[data-check-all]").forEach(function (master) {
      if (master.hasAttribute("data-bound")) return;
      master.setAttribute("data-bound", "");
      master.addEventListener("change", function () {
        var form = master.form;
        var name = master.getAttribute("data-check-all");
        form.querySelectorAll('input[type="checkbox"]').forEach(function (box) {
          if (box.name === name) box.checked = master.checked;
        });
      });
    });
  }

  // Checking many rows at once: shift-click checks (or clears) every box
  // between the last one clicked and this one; "Check rows N to M" checks
  // rows N to M of the page (counted from 1).
  function ranges() {
    var last = null;
    document.addEventListener("click", function (event) {
      var box = event.target;
      if (!box.matches || !box.matches('input[type="checkbox"][name="keys[]"]')) return;
      var boxes = Array.prototype.slice.call(box.form.querySelectorAll('input[type="checkbox"][name="keys[]"]'));
      if (event.shiftKey && last && boxes.indexOf(last) >= 0) {
        var a = boxes.indexOf(last), b = boxes.indexOf(box);
        boxes.slice(Math.min(a, b), Math.max(a, b) + 1).forEach(function (other) { other.checked = box.checked; });
      }
      last = box;
    });
    bindRanges();
  }

  function bindRanges() {
    document.querySelectorAll("[data-range]").forEach(function (range) {
      range.hidden = false;
      if (range.hasAttribute("data-bound")) return;
      range.setAttribute("data-bound", "");
      range.querySelector("[data-range-check]").addEventListener("click", function () {
        var name = range.getAttribute("data-range");
        var boxes = Array.prototype.filter.call(range.closest("form").querySelectorAll('input[type="checkbox"]'), function (box) { return box.name === name; });
        var from = parseInt(range.querySelector("[data-range-from]").value, 10) || 1;
        var to = parseInt(range.querySelector("[data-range-to]").value, 10) || boxes.length;
        boxes.forEach(function (box, i) { if (i + 1 >= Math.min(from, to) && i + 1 <= Math.max(from, to)) box.checked = true; });
      });
    });
  }

  // Buttons with data-confirm ask first; the form goes only on "OK". A
  // button acting on checked boxes (data-needs-checked) says how many, and
  // does nothing when none is checked but say so (data-none-checked, in the
  // page's language).
  function confirmations() {
    document.addEventListener("submit", function (event) {
      var button = event.submitter;
      if (!button) return;
      var question = button.getAttribute("data-confirm");
      var boxes = button.getAttribute("data-needs-checked");
      if (boxes) {
        var checked = Array.prototype.filter.call(button.form.querySelectorAll('input[type="checkbox"]'), function (box) {
          return box.name === boxes && box.checked;
        }).length;
        if (checked === 0) {
          event.preventDefault();
          window.alert(button.getAttribute("data-none-checked") || "Check the entries to act on first.");
          return;
        }
        question = question && question.replace("%{checked}", count(checked));
      }
      if (question && !window.confirm(question)) event.preventDefault();
    });
  }

  // A long error message shows its first lines; its button unfolds it all
  // and folds it again.
  function clampedMessages() {
    document.querySelectorAll("button[aria-controls][data-more]").forEach(function (button) {
      var target = document.getElementById(button.getAttribute("aria-controls"));
      if (!target) return;
      button.addEventListener("click", function () {
        var open = target.classList.toggle("open");
        button.setAttribute("aria-expanded", String(open));
        button.textContent = button.getAttribute(open ? "data-less" : "data-more");
      });
    });
  }

  // Calls `step` every `interval` ms while the tab is visible; a hidden tab
  // makes no requests, and showing it again runs a step at once.
  function whileVisible(interval, step) {
    var timer = null;
    function schedule() {
      clearTimeout(timer);
      if (!document.hidden) timer = setTimeout(function () { step(schedule); }, interval);
    }
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) clearTimeout(timer); else step(schedule);
    });
    schedule();
  }

  // The header's counters, refreshed from stats.json.
  function liveHeader() {
    var bar = document.querySelector("[data-live-src]");
    if (!bar) return;
    var interval = Math.max(1, parseInt(bar.getAttribute("data-interval"), 10) || 5) * 1000;
    whileVisible(interval, function (next) {
      fetch(bar.getAttribute("data-live-src"), { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (stats) {
          bar.classList.toggle("stale", !stats);
          if (!stats) return;
          bar.querySelectorAll("[data-live-stat]").forEach(function (cell) {
            var value = stats[cell.getAttribute("data-live-stat")];
            if (value !== undefined) cell.textContent = count(value);
          });
        }, function () { bar.classList.add("stale"); })
        .then(next);
    });
  }

  // Live pages (Busy, Queues, the sets): with the toggle on, the page's
  // content is read again and swapped in, unless the user is in the middle of
  // something there (a checked box, a focused field, an unfolded entry).
  function livePage() {
    var toggle = document.querySelector("[data-live-toggle]");
    var bar = document.querySelector("[data-live-src]");
    if (!toggle || !bar) return;
    var interval = Math.max(1, parseInt(bar.getAttribute("data-interval"), 10) || 5) * 1000;
    try { toggle.checked = window.localStorage.getItem("deckhand-live") === "1"; } catch (e) { /* storage off */ }
    toggle.addEventListener("change", function () {
      try { window.localStorage.setItem("deckhand-live", toggle.checked ? "1" : "0"); } catch (e) { /* storage off */ }
    });

    function busy(region) {
      return region.querySelector("input[type=checkbox]:checked, details[open]") || region.contains(document.activeElement);
    }

    whileVisible(interval, function (next) {
      var region = document.getElementById("live-region");
      if (!toggle.checked || !region || busy(region)) { next(); return; }
      fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (html) {
          if (!html || busy(region)) return;
          var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("live-region");
          if (!fresh) return;
          region.replaceWith(document.importNode(fresh, true));
          charts();
          checkAll();
          bindRanges();
        }, function () { /* next poll tries again */ })
        .then(next);
    });
  }

  // After an action the server sends the browser back to the same list; this
  // puts it back at the same height too (the notice says what was done).
  function keepScroll() {
    var KEY = "deckhand-scroll";
    document.addEventListener("submit", function (event) {
      if (event.defaultPrevented || (event.target.method || "").toLowerCase() !== "post") return;
      // The row acted on, by its place in the list: focus returns there.
      var row = event.submitter && event.submitter.closest("tbody tr");
      var rows = row ? Array.prototype.indexOf.call(row.parentNode.children, row) : -1;
      try {
        window.sessionStorage.setItem(KEY, JSON.stringify({ page: location.pathname + location.search, y: window.scrollY, row: rows }));
      } catch (e) { /* storage off */ }
    });
    var saved = null;
    try { saved = JSON.parse(window.sessionStorage.getItem(KEY) || "null"); window.sessionStorage.removeItem(KEY); } catch (e) { return; }
    var notice = document.querySelector(".notice");
    if (!saved || saved.page !== location.pathname + location.search || !notice) return;
    // The notice pushed the list down by its own height; after the browser's
    // own jump to the #fragment, which comes with the load event.
    var restore = function () {
      window.scrollTo(0, saved.y + notice.offsetHeight + 16);
      focusAfterAction(saved.row, notice);
    };
    if (document.readyState === "complete") restore();
    else window.addEventListener("load", function () { window.requestAnimationFrame(restore); });
  }

  // Keyboard users keep their place: focus goes to the row now where the
  // acted-on one was (the next job), else to the notice saying what was done.
  function focusAfterAction(index, notice) {
    var rows = document.querySelectorAll("#entries tbody tr[tabindex]");
    var target = index >= 0 && rows.length ? rows[Math.min(index, rows.length - 1)] : notice;
    target.focus({ preventScroll: true });
  }

  // A page reached after an action elsewhere (a confirmation page's button,
  // another page's form) has its notice focused, so it is read out and Tab
  // goes on from there.
  function focusNotice() {
    var notice = document.getElementById("notice");
    if (notice && document.activeElement === document.body) notice.focus({ preventScroll: true });
  }

  function start() {
    ranges();
    confirmations();
    clampedMessages();
    keepScroll();
    checkAll();
    liveHeader();
    livePage();
    history();
    charts();
    live();
    focusNotice();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
