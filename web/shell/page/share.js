// Links, the clipboard, downloads, the file picker, the Hub fetch: the page's ways in and out.

function pageLink() {
  var q = new URLSearchParams(location.search);
  q.delete('embed');
  var s = q.toString();
  return location.origin + location.pathname + (s ? '?' + s : '');
}

function copyText(text) {
  function fallback() {
    var ta = document.createElement('textarea');
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    try { document.execCommand('copy'); } catch (e) { /* nothing else to try */ }
    ta.remove();
    canvas.focus();
  }
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).catch(fallback);
  else fallback();
}

function download(name, mime, text) {
  var url = URL.createObjectURL(new Blob([text], {type: mime}));
  var a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
}

function openFile() {
  var input = document.createElement('input');
  input.type = 'file';
  input.accept = '.json,.yaml,.yml,.txt,.sh,application/json,text/plain';
  input.onchange = function () { readFile(input.files[0]); };
  input.click();
}

function fetchText(url) {
  fetch(url, {credentials: 'omit'}).then(function (r) {
    if (r.ok) return r.text().then(function (body) {
      var why = unreadable(body, body.length);
      call('vramcalc_on_fetched', ['number', 'string', 'string', 'string'], why ? [0, url, '', 'the answer ' + why] : [1, url, body, '']);
    });
    var why = r.status === 404 ? 'HTTP 404: no such model or file (check the id)' :
              (r.status === 401 || r.status === 403) ? 'HTTP ' + r.status + ': the model is gated or private; download its config.json and drop it here' :
              'HTTP ' + r.status;
    call('vramcalc_on_fetched', ['number', 'string', 'string', 'string'], [0, url, '', why]);
  }).catch(function () {
    call('vramcalc_on_fetched', ['number', 'string', 'string', 'string'],
         [0, url, '', navigator.onLine === false ? 'you are offline' : 'network error (offline, or the server does not allow this page to read it)']);
  });
}

function setHash(hash) {
  if (location.hash.slice(1) === hash) return;
  history.replaceState(null, '', location.pathname + location.search + '#' + hash);
}

function openUrl(url) { window.open(url, '_blank', 'noopener'); }
