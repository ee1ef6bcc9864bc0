// Home page: prediction-market moves pushed by the SSE stream, newest first (10 kept).
(function () {
  'use strict';
  var list = document.getElementById('live-moves');
  var state = document.getElementById('live-state');
  if (!list || !window.EventSource) return;
  var source = new EventSource('/api/prediction-markets/stream');
  source.addEventListener('open', function () { state.textContent = 'live'; });
  source.addEventListener('error', function () { state.textContent = 'reconnecting'; });
  source.addEventListener('deltas', function (ev) {
    var data;
    try { data = JSON.parse(ev.data); } catch (e) { return; }
    (data.deltas || []).slice(0, 5).reverse().forEach(function (d) {
      var li = document.createElement('li');
      var a = document.createElement('a');
      a.href = '/markets/' + encodeURIComponent(d.source) + '/' + encodeURIComponent(d.slug);
      a.textContent = d.title;
      li.appendChild(a);
      var ch = document.createElement('span');
      var v = Number(d.priceChange24h);
      ch.className = v > 0 ? 'up' : v < 0 ? 'down' : '';
      ch.textContent = ' ' + (v > 0 ? '+' : '') + (isFinite(v) ? v.toFixed(1) : '—') + ' pts ';
      li.appendChild(ch);
      var m = document.createElement('span');
      m.className = 'muted';
      m.textContent = d.source + ' · just now';
      li.appendChild(m);
      list.insertBefore(li, list.firstChild);
    });
    while (list.children.length > 10) list.removeChild(list.lastChild);
  });
  window.addEventListener('pagehide', function () { source.close(); });
})();
