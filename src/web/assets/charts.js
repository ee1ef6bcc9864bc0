// Draws every <figure data-chart> with uPlot from the JSON inside it (the page's own data).
(function () {
  'use strict';
  if (!window.uPlot) return;
  var css = getComputedStyle(document.documentElement);
  var v = function (name, fallback) { return (css.getPropertyValue(name) || fallback).trim(); };
  var fg = v('--fg', '#222'), muted = v('--muted', '#888'), grid = v('--line', '#ddd');
  var palette = [v('--accent', '#2563eb'), '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626', '#475569', '#ca8a04', '#9333ea', '#0d9488'];
  var compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
  var yValues = function (u, vals) { return vals.map(function (v) { return Math.abs(v) >= 1000 ? compact.format(v) : String(+v.toFixed(4)); }); };
  var axis = function (extra) { return Object.assign({ stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } }, extra || {}); };

  function build(fig) {
    var spec = JSON.parse(fig.querySelector('script[type="application/json"]').textContent);
    var kind = fig.getAttribute('data-chart');
    var opts = { width: Math.max(200, fig.clientWidth), height: 260, legend: { show: true }, cursor: { drag: { x: false, y: false } }, series: [{}], axes: [axis(), axis({ size: 56, values: yValues })] };
    var data;
    if (kind === 'reliability') {
      var xs = [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95];
      opts.scales = { x: { time: false, range: [0, 1] }, y: { range: [0, 1] } };
      opts.series[0] = { label: 'predicted' };
      opts.series.push({ label: 'perfect', stroke: muted, dash: [4, 4], points: { show: false } });
      data = [xs, xs];
      spec.bins.forEach(function (bins, i) {
        opts.series.push({ label: spec.series[i], stroke: palette[i % palette.length], width: 1.5, spanGaps: true, points: { show: true, size: 5 } });
        data.push(bins.map(function (b) { return b[1]; }));
      });
    } else if (kind === 'candles') {
      var c = spec.candles;
      opts.series.push({ label: 'Close', stroke: palette[0], width: 1.5 });
      opts.series.push({ label: 'High', stroke: muted, width: 1, dash: [2, 3] });
      opts.series.push({ label: 'Low', stroke: muted, width: 1, dash: [2, 3] });
      data = [c.map(function (r) { return r[0]; }), c.map(function (r) { return r[4]; }), c.map(function (r) { return r[2]; }), c.map(function (r) { return r[3]; })];
    } else {
      var p = spec.points;
      opts.series.push({ label: spec.series[0] + (spec.unit ? ' (' + spec.unit + ')' : ''), stroke: palette[0], width: 2, fill: 'rgba(37,99,235,0.08)' });
      data = [p.map(function (r) { return r[0]; }), p.map(function (r) { return r[1]; })];
    }
    if (data[0].length === 0) {
      var note = document.createElement('p');
      note.className = 'muted';
      note.textContent = 'No points yet.';
      fig.appendChild(note);
      return;
    }
    var plot = new window.uPlot(opts, data, fig);
    var t;
    window.addEventListener('resize', function () {
      clearTimeout(t);
      t = setTimeout(function () { plot.setSize({ width: Math.max(200, fig.clientWidth), height: 260 }); }, 150);
    });
  }
  document.querySelectorAll('figure[data-chart]').forEach(function (fig) {
    try { build(fig); } catch (e) { fig.appendChild(document.createTextNode('Chart unavailable.')); }
  });
})();
