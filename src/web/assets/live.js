// Home page: prediction-market moves pushed by the SSE stream, newest first (10 kept).
(function () {
  'use strict';
  var list = document.getElementById('live-moves');
  var state = document.getElementById('live-state');
  if (!list || !window.EventSource) return;
  var source = null;
  var retryTimer = null;
  var delayMs = 5000;
  // EventSource retries a dropped stream itself, but gives up for good when the server refuses
  // it (503 at capacity, 429): then this page retries, backing off, and says so.
  function connect() {
    retryTimer = null;
    source = new EventSource('/api/prediction-markets/stream');
    source.addEventListener('open', function () {
      state.textContent = 'live';
      delayMs = 5000;
    });
    source.addEventListener('error', function () {
      if (source.readyState !== EventSource.CLOSED) {
        state.textContent = 'reconnecting';
        return;
      }
      state.textContent = 'offline, retrying in ' + Math.round(delayMs / 1000) + ' s';
      retryTimer = setTimeout(connect, delayMs);
      delayMs = Math.min(delayMs * 2, 60000);
    });
    source.addEventListener('deltas', onDeltas);
  }
  function disconnect() {
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    if (source) source.close();
    source = null;
  }
  function onDeltas(ev) {
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
  }
  // a tab in the background gives its stream slot back (five per address)
  document.addEventListener('visibilitychange', function () {
    if (document.hidden) disconnect();
    else if (!source && !retryTimer) connect();
  });
  window.addEventListener('pagehide', disconnect);
  connect();
})();
