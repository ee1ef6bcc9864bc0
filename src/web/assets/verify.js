// Decision artifact page: recompute the content hash in the browser (SHA-256 over the canonical
// JSON of the fields the artifact lists in contentHashFields, absent values as null) and compare.
(function () {
  'use strict';
  function canonical(v) {
    if (v === null || typeof v !== 'object') return JSON.stringify(v === undefined ? null : v);
    if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
    var keys = Object.keys(v).filter(function (k) { return v[k] !== undefined; }).sort();
    return '{' + keys.map(function (k) { return JSON.stringify(k) + ':' + canonical(v[k]); }).join(',') + '}';
  }
  function hex(buf) {
    return Array.prototype.map.call(new Uint8Array(buf), function (b) { return (b < 16 ? '0' : '') + b.toString(16); }).join('');
  }
  // Web Crypto exists only in secure contexts (https, localhost); elsewhere a small SHA-256 in JS.
  function sha256Fallback(bytes) {
    var K = [], H = [], i, j;
    var isPrime = function (n) { for (var f = 2; f * f <= n; f++) if (n % f === 0) return false; return true; };
    var frac = function (x) { return ((x - Math.floor(x)) * 4294967296) | 0; };
    for (var n = 2, c = 0; c < 64; n++) if (isPrime(n)) { if (c < 8) H[c] = frac(Math.pow(n, 1 / 2)); K[c++] = frac(Math.pow(n, 1 / 3)); }
    var len = bytes.length, words = [], total = ((len + 9 + 63) >> 6) << 4;
    for (i = 0; i < total; i++) words[i] = 0;
    for (i = 0; i < len; i++) words[i >> 2] |= bytes[i] << (24 - (i % 4) * 8);
    words[len >> 2] |= 0x80 << (24 - (len % 4) * 8);
    words[total - 1] = len * 8;
    var rot = function (x, r) { return (x >>> r) | (x << (32 - r)); };
    for (i = 0; i < total; i += 16) {
      var w = words.slice(i, i + 16), a = H.slice();
      for (j = 0; j < 64; j++) {
        if (j >= 16) {
          var s0 = rot(w[j - 15], 7) ^ rot(w[j - 15], 18) ^ (w[j - 15] >>> 3);
          var s1 = rot(w[j - 2], 17) ^ rot(w[j - 2], 19) ^ (w[j - 2] >>> 10);
          w[j] = (w[j - 16] + s0 + w[j - 7] + s1) | 0;
        }
        var t1 = (a[7] + (rot(a[4], 6) ^ rot(a[4], 11) ^ rot(a[4], 25)) + ((a[4] & a[5]) ^ (~a[4] & a[6])) + K[j] + w[j]) | 0;
        var t2 = ((rot(a[0], 2) ^ rot(a[0], 13) ^ rot(a[0], 22)) + ((a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]))) | 0;
        a = [(t1 + t2) | 0, a[0], a[1], a[2], (a[3] + t1) | 0, a[4], a[5], a[6]];
      }
      for (j = 0; j < 8; j++) H[j] = (H[j] + a[j]) | 0;
    }
    return H.map(function (h) { return ('00000000' + (h >>> 0).toString(16)).slice(-8); }).join('');
  }
  function sha256(text) {
    var bytes = new TextEncoder().encode(text);
    if (window.crypto && window.crypto.subtle) return window.crypto.subtle.digest('SHA-256', bytes).then(hex);
    return Promise.resolve(sha256Fallback(bytes));
  }
  var button = document.getElementById('verify-button');
  var out = document.getElementById('verify-result');
  var area = document.getElementById('artifact-json');
  if (!button || !out || !area) return;
  button.addEventListener('click', function () {
    var artifact;
    try {
      artifact = JSON.parse(area.value);
    } catch (e) {
      out.textContent = 'mismatch: the artifact is not valid JSON';
      out.className = 'down';
      return;
    }
    var fields = Array.isArray(artifact.contentHashFields) ? artifact.contentHashFields : [];
    var picked = {};
    fields.forEach(function (f) { picked[f] = artifact[f] === undefined ? null : artifact[f]; });
    sha256(canonical(picked)).then(function (digest) {
      var ok = fields.length > 0 && digest === artifact.contentHash;
      out.textContent = ok ? 'verified: the hash matches (' + digest.slice(0, 16) + '…)' : 'mismatch: recomputed ' + digest.slice(0, 16) + '…, artifact says ' + String(artifact.contentHash).slice(0, 16) + '…';
      out.className = ok ? 'up' : 'down';
    });
  });
})();
