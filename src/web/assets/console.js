// Owner console: every action is an admin API call with the token from session storage as a
// Bearer header. The token never goes into a URL; a new key is shown once and never stored.
(function () {
  'use strict';
  var STORE = 'paperArenaAdminToken';
  var $ = function (id) { return document.getElementById(id); };
  var status = $('console-status');

  function token() { return sessionStorage.getItem(STORE); }
  function call(method, path, body) {
    var init = { method: method, headers: { authorization: 'Bearer ' + token() } };
    if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch(path, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (!res.ok) { var e = new Error(data.message || ('HTTP ' + res.status)); e.status = res.status; throw e; }
        return data;
      });
    });
  }
  function say(text, bad) { status.textContent = text; status.className = bad ? 'down' : ''; }
  function fail(e) {
    if (e.status === 401) { signOut(); $('signin-error').textContent = 'The admin token was refused.'; return; }
    say(e.message, true);
  }
  function el(tag, text, attrs) {
    var n = document.createElement(tag);
    if (text !== undefined && text !== null) n.textContent = String(text);
    if (attrs) Object.keys(attrs).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    return n;
  }
  function button(label, onClick) { var b = el('button', label, { type: 'button' }); b.addEventListener('click', onClick); return b; }

  function renderKeys(keys) {
    var body = $('keys-table').querySelector('tbody');
    body.textContent = '';
    keys.forEach(function (k) {
      var tr = el('tr', null, { 'data-key-id': String(k.keyId) });
      tr.appendChild(el('td', k.keyId));
      tr.appendChild(el('td', k.userId));
      var agent = el('td');
      if (k.handle) { var a = el('a', k.agentName || k.handle, { href: '/arena/' + k.handle }); agent.appendChild(a); } else agent.textContent = k.agentName || '—';
      tr.appendChild(agent);
      tr.appendChild(el('td', k.scopes.join(' '), { class: 'hide-s' }));
      tr.appendChild(el('td', k.revokedAt ? 'revoked' : k.public ? 'public' : 'private'));
      var actions = el('td');
      if (!k.revokedAt) {
        actions.appendChild(button(k.public ? 'Unpublish' : 'Publish', function () {
          call('PATCH', '/api/admin/keys/' + k.keyId, { public: !k.public }).then(function () { say('Key ' + k.keyId + (k.public ? ' unpublished' : ' published')); load(); }, fail);
        }));
        actions.appendChild(document.createTextNode(' '));
        actions.appendChild(button('Rotate', function () {
          if (!window.confirm('Rotate key ' + k.keyId + '? Its current secret stops working; the book stays.')) return;
          call('POST', '/api/admin/keys/' + k.keyId + '/rotate').then(function (rotated) {
            $('new-key-value').textContent = rotated.key;
            $('new-key').hidden = false;
            say('Key ' + k.keyId + ' rotated');
            return load(); // the list shows the new key's prefix
          }, fail);
        }));
        actions.appendChild(document.createTextNode(' '));
        actions.appendChild(button('Revoke', function () {
          if (!window.confirm('Revoke key ' + k.keyId + '? Its next request gets 401.')) return;
          call('POST', '/api/admin/keys/' + k.keyId + '/revoke').then(function () { say('Key ' + k.keyId + ' revoked'); load(); }, fail);
        }));
      }
      tr.appendChild(actions);
      body.appendChild(tr);
    });
  }
  function renderCompetitions(list) {
    var ul = $('competitions-list');
    var select = $('entry-slug');
    var chosen = select.value; // kept across reloads: the next add or remove is for the same competition
    ul.textContent = '';
    select.textContent = '';
    list.forEach(function (c) {
      var li = el('li');
      li.appendChild(el('a', c.name, { href: '/competitions/' + c.slug }));
      li.appendChild(el('span', ' ' + c.status + ' · ' + (c.featured ? 'featured' : c.visibility) + ' · ' + c.entryCount + (c.entryCount === 1 ? ' entry' : ' entries'), { class: 'muted' }));
      // only one not yet started can be deleted (a started one is hidden by making it unlisted)
      if (c.status === 'upcoming') {
        li.appendChild(document.createTextNode(' '));
        li.appendChild(button('Delete', function () {
          if (!window.confirm('Delete competition ' + c.slug + ' and its entries?')) return;
          call('DELETE', '/api/admin/competitions/' + encodeURIComponent(c.slug)).then(function () { say('Competition ' + c.slug + ' deleted'); load(); }, fail);
        }));
      }
      ul.appendChild(li);
      select.appendChild(el('option', c.slug));
    });
    if (list.some(function (c) { return c.slug === chosen; })) select.value = chosen;
  }
  function load() {
    return Promise.all([call('GET', '/api/admin/keys'), call('GET', '/api/admin/competitions')]).then(function (r) {
      renderKeys(r[0].keys);
      renderCompetitions(r[1].competitions);
    });
  }
  function signedIn() {
    $('signin').hidden = true;
    $('console').hidden = false;
    return load().catch(fail);
  }
  function signOut() {
    sessionStorage.removeItem(STORE);
    $('console').hidden = true;
    $('signin').hidden = false;
    $('new-key').hidden = true;
    $('new-key-value').textContent = '';
  }

  $('signin-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    $('signin-error').textContent = '';
    sessionStorage.setItem(STORE, $('admin-token').value.trim());
    $('admin-token').value = '';
    signedIn();
  });
  $('signout').addEventListener('click', signOut);

  $('create-key').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var scopes = Array.prototype.filter.call(document.querySelectorAll('.key-scope'), function (c) { return c.checked; }).map(function (c) { return c.value; });
    var body = { userId: $('key-user').value.trim(), scopes: scopes.length ? scopes : ['read'], public: $('key-public').checked };
    if ($('key-name').value.trim()) body.name = $('key-name').value.trim();
    if ($('key-model').value.trim()) body.model = $('key-model').value.trim();
    call('POST', '/api/admin/keys', body).then(function (created) {
      $('new-key-value').textContent = created.key;
      $('new-key').hidden = false;
      say('Key ' + created.keyId + ' created');
      return load();
    }, fail);
  });
  $('copy-key').addEventListener('click', function () {
    var text = $('new-key-value').textContent;
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(function () { say('Copied'); }, function () { say('Copy failed; select the key and copy it', true); });
    else { var r = document.createRange(); r.selectNodeContents($('new-key-value')); var s = window.getSelection(); s.removeAllRanges(); s.addRange(r); say('Selected; press Ctrl+C'); }
  });
  $('dismiss-key').addEventListener('click', function () { $('new-key').hidden = true; $('new-key-value').textContent = ''; });

  $('create-competition').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var iso = function (v) { return new Date(v).toISOString(); };
    call('POST', '/api/admin/competitions', {
      slug: $('comp-slug').value.trim(), title: $('comp-title').value.trim(),
      startsAt: iso($('comp-start').value), endsAt: iso($('comp-end').value), visibility: $('comp-visibility').value,
    }).then(function (c) { say('Competition ' + c.slug + ' created'); return load(); }, fail);
  });
  $('add-entry').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var slug = $('entry-slug').value;
    call('POST', '/api/admin/competitions/' + encodeURIComponent(slug) + '/entries', { keyId: Number($('entry-key').value) })
      .then(function (e) { say('Key ' + e.keyId + ' entered into ' + e.slug); return load(); }, fail);
  });

  $('remove-entry').addEventListener('click', function () {
    var slug = $('entry-slug').value;
    var keyId = Number($('entry-key').value);
    if (!slug || !(keyId >= 1)) { say('Choose a competition and a key id', true); return; }
    call('DELETE', '/api/admin/competitions/' + encodeURIComponent(slug) + '/entries/' + keyId)
      .then(function (e) { say('Key ' + e.keyId + ' removed from ' + e.slug); return load(); }, fail);
  });

  if (token()) signedIn();
})();
