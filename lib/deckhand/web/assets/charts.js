/*
 * Deckhand charts: small SVG line and bar charts for the dashboard.
 * Part of Deckhand, released under the MIT licence (see charts.LICENSE.txt).
 *
 *   DeckhandCharts.draw(element, {
 *     type: "line",                       // or "bars" (stacked)
 *     labels: ["10:00", "10:01"],
 *     series: [["Processed", [3, 5]], ["Failed", [0, 1]]],   // null: no value
 *     height: 220
 *   });
 *
 * Colours come from CSS (.series-0, .series-1, ...), so dark mode is a
 * stylesheet matter. No inline styles: the page's Content-Security-Policy
 * allows none. A chart redraws itself when the window is resized.
 */
(function (global) {
  "use strict";

  var NS = "http://www.w3.org/2000/svg";
  var PAD = { left: 52, right: 10, top: 10, bottom: 26 };
  var drawn = [];

  function node(tag, attrs, parent) {
    var element = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (name) { element.setAttribute(name, attrs[name]); });
    if (parent) parent.appendChild(element);
    return element;
  }

  function niceCeiling(value) {
    if (!(value > 0)) return 1;
    var power = Math.pow(10, Math.floor(Math.log10(value)));
    // Each splits into five round ticks; close enough that the tallest bar
    // fills most of the chart (21k gets an axis to 25k, not 50k).
    var steps = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < steps.length; i++) {
      if (value <= steps[i] * power) return steps[i] * power;
    }
    return 10 * power;
  }

  function compact(value) {
    var abs = Math.abs(value);
    if (abs >= 1e9) return (value / 1e9).toFixed(abs >= 1e10 ? 0 : 1) + "G";
    if (abs >= 1e6) return (value / 1e6).toFixed(abs >= 1e7 ? 0 : 1) + "M";
    if (abs >= 1e3) return (value / 1e3).toFixed(abs >= 1e4 ? 0 : 1) + "k";
    if (abs > 0 && abs < 10 && value % 1 !== 0) return value.toFixed(abs < 1 ? 2 : 1);
    return String(Math.round(value));
  }

  function maximum(options) {
    var max = 0;
    var count = options.labels.length;
    for (var i = 0; i < count; i++) {
      var stack = 0;
      options.series.forEach(function (pair) {
        var v = pair[1][i];
        if (typeof v !== "number") return;
        if (options.type === "bars") stack += v; else max = Math.max(max, v);
      });
      max = Math.max(max, stack);
    }
    return niceCeiling(max);
  }

  function grid(svg, width, height, max) {
    var plotHeight = height - PAD.top - PAD.bottom;
    for (var i = 0; i <= 5; i++) {
      var y = PAD.top + plotHeight - (plotHeight * i) / 5;
      node("line", { x1: PAD.left, x2: width - PAD.right, y1: y, y2: y, "class": "grid" }, svg);
      node("text", { x: PAD.left - 6, y: y + 4, "text-anchor": "end", "class": "axis" }, svg).textContent = compact((max * i) / 5);
    }
  }

  // As many labels as fit, about 90 px apart, counted back from the newest.
  function xLabels(svg, options, x, width, height) {
    var count = options.labels.length;
    var room = Math.max(2, Math.floor((width - PAD.left - PAD.right) / 90));
    var every = Math.max(1, Math.ceil(count / room));
    for (var i = count - 1; i >= 0; i -= every) {
      if (!options.labels[i]) continue;
      var anchor = i === count - 1 && count > 1 ? "end" : "middle";
      node("text", { x: x(i), y: height - 8, "text-anchor": anchor, "class": "axis" }, svg).textContent = options.labels[i];
    }
  }

  // A line per series, broken where a value is missing; with few points,
  // a dot on each, so a single point still shows.
  function lines(svg, options, x, y) {
    var dots = options.labels.length <= 60;
    options.series.forEach(function (pair, s) {
      var path = "";
      var pen = "M";
      pair[1].forEach(function (v, i) {
        if (typeof v !== "number") { pen = "M"; return; }
        path += pen + x(i).toFixed(1) + " " + y(v).toFixed(1) + " ";
        pen = "L";
        if (dots) node("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 2.5, "class": "dot series-" + s }, svg);
      });
      if (path) node("path", { d: path, "class": "line series-" + s }, svg);
    });
  }

  function bars(svg, options, x, y, slot) {
    var width = Math.max(1, slot * 0.8);
    options.labels.forEach(function (_, i) {
      var base = 0;
      options.series.forEach(function (pair, s) {
        var v = pair[1][i];
        if (!(v > 0)) return;
        node("rect", { x: (x(i) - width / 2).toFixed(1), y: y(base + v).toFixed(1), width: width.toFixed(1),
          height: Math.max(0, y(base) - y(base + v)).toFixed(1), "class": "bar series-" + s }, svg);
        base += v;
      });
    });
  }

  // One invisible column per point, whose title the browser shows on hover.
  function hovers(svg, options, x, slot, height) {
    options.labels.forEach(function (label, i) {
      if (!label) return;
      var text = label + options.series.map(function (pair) {
        var v = pair[1][i];
        return "\n" + pair[0] + ": " + (typeof v === "number" ? v.toLocaleString() : "–");
      }).join("");
      var column = node("rect", { x: (x(i) - slot / 2).toFixed(1), y: PAD.top, width: slot.toFixed(1),
        height: height - PAD.top - PAD.bottom, "class": "hover" }, svg);
      node("title", {}, column).textContent = text;
    });
  }

  function legend(options) {
    var list = document.createElement("ul");
    list.className = "legend";
    options.series.forEach(function (pair, s) {
      var item = document.createElement("li");
      item.className = "series-" + s;
      item.textContent = pair[0];
      list.appendChild(item);
    });
    return list;
  }

  function render(element, options) {
    var width = Math.max(element.clientWidth || 0, 240);
    var height = options.height || 220;
    var count = options.labels.length;
    var plotWidth = width - PAD.left - PAD.right;
    var slot = plotWidth / Math.max(count, 1);
    var max = maximum(options);
    var x = options.type === "bars" || count < 2
      ? function (i) { return PAD.left + slot * (i + 0.5); }
      : function (i) { return PAD.left + (plotWidth * i) / (count - 1); };
    var y = function (v) { return PAD.top + (height - PAD.top - PAD.bottom) * (1 - v / max); };
    var svg = node("svg", { viewBox: "0 0 " + width + " " + height, width: width, height: height,
      role: "img", "aria-label": options.series.map(function (p) { return p[0]; }).join(", "), "class": "chart-svg" });
    grid(svg, width, height, max);
    if (options.type === "bars") bars(svg, options, x, y, slot); else lines(svg, options, x, y);
    xLabels(svg, options, x, width, height);
    hovers(svg, options, x, slot, height);
    element.replaceChildren(svg, legend(options));
  }

  function draw(element, options) {
    element.deckhandChart = options;
    // A live page swaps its content in: the charts it took out go.
    drawn = drawn.filter(function (other) { return other.isConnected; });
    if (drawn.indexOf(element) < 0) drawn.push(element);
    render(element, options);
  }

  var resizeTimer = null;
  global.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      drawn.forEach(function (element) { render(element, element.deckhandChart); });
    }, 100);
  });

  global.DeckhandCharts = { draw: draw, compact: compact };
})(window);
