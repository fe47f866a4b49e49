// The browser half of the page's platform (web/main_web.cpp calls vramcalcPage.*; the C++ side is
// reached through Module.ccall). No network request happens without a user action: the only fetch is
// the Hub config.json the user asks for.
'use strict';
(function () {
  var canvas = document.getElementById('canvas');
  var summary = document.getElementById('summary');
  var loading = document.getElementById('loading');
  var params = new URLSearchParams(location.search);
  var t0 = performance.now();

  function ready() { return typeof Module !== 'undefined' && Module.calledRun; }
  function wake() { if (ready()) Module._vramcalc_wake(); }
  function call(fn, types, args) { if (ready()) Module.vramcalcCallWithStrings(fn, null, types, args, false); }  // heap, not stack (api_post.js)
  function fail(text) {
    loading.style.display = 'flex';
    loading.className = 'error';
    loading.textContent = 'vramcalc could not start: ' + text;
  }

  // The canvas holds device pixels (crisp on HiDPI); CSS sizes it to the window.
  function resize() {
    var dpr = window.devicePixelRatio || 1;
    var w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h) canvas.height = h;
    canvas.style.removeProperty('width');   // Emscripten's GLFW writes inline sizes at start-up
    canvas.style.removeProperty('height');
    wake();
  }
  window.addEventListener('resize', resize);
  resize();

  ['mousemove', 'mousedown', 'mouseup', 'wheel', 'keydown', 'keyup', 'touchstart', 'touchmove', 'touchend', 'focus', 'blur']
    .forEach(function (type) { window.addEventListener(type, wake, {passive: true, capture: true}); });
  window.addEventListener('paste', function (e) {
    call('vramcalc_on_paste', ['string'], [e.clipboardData ? e.clipboardData.getData('text/plain') : '']);
  });
  window.addEventListener('hashchange', function () { call('vramcalc_on_hash', ['string'], [location.hash]); });

  var maxFileBytes = 8 << 20;  // a config.json is a few KB; anything this large is not one
  function readFile(file) {
    if (!file) return;
    if (file.size > maxFileBytes) {
      call('vramcalc_on_file', ['string', 'string'], [file.name, '']);
      return;
    }
    file.text().then(function (text) { call('vramcalc_on_file', ['string', 'string'], [file.name, text]); });
  }
  window.addEventListener('dragover', function (e) { e.preventDefault(); });
  window.addEventListener('drop', function (e) {
    e.preventDefault();
    if (e.dataTransfer && e.dataTransfer.files.length) readFile(e.dataTransfer.files[0]);
  });

  function pageLink() {
    var q = new URLSearchParams(location.search);
    q.delete('embed');
    var s = q.toString();
    return location.origin + location.pathname + (s ? '?' + s : '');
  }

  window.vramcalcPage = {
    embed: params.get('embed') === '1',
    firstFrameMs: null,
    copyText: function (text) {
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
    },
    download: function (name, mime, text) {
      var url = URL.createObjectURL(new Blob([text], {type: mime}));
      var a = document.createElement('a');
      a.href = url;
      a.download = name;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
    },
    openFile: function () {
      var input = document.createElement('input');
      input.type = 'file';
      input.accept = '.json,application/json';
      input.onchange = function () { readFile(input.files[0]); };
      input.click();
    },
    fetchText: function (url) {
      fetch(url, {credentials: 'omit'}).then(function (r) {
        if (r.ok) return r.text().then(function (body) { call('vramcalc_on_fetched', ['number', 'string', 'string', 'string'], [1, url, body, '']); });
        var why = r.status === 404 ? 'HTTP 404: no such model or file (check the id)' :
                  (r.status === 401 || r.status === 403) ? 'HTTP ' + r.status + ': the model is gated or private; download its config.json and drop it here' :
                  'HTTP ' + r.status;
        call('vramcalc_on_fetched', ['number', 'string', 'string', 'string'], [0, url, '', why]);
      }).catch(function () {
        call('vramcalc_on_fetched', ['number', 'string', 'string', 'string'],
             [0, url, '', navigator.onLine === false ? 'you are offline' : 'network error (offline, or the server does not allow this page to read it)']);
      });
    },
    setHash: function (hash) {
      if (location.hash.slice(1) === hash) return;
      history.replaceState(null, '', location.pathname + location.search + '#' + hash);
    },
    pageLink: pageLink,
    openUrl: function (url) { window.open(url, '_blank', 'noopener'); },
    setSummary: function (text) { summary.textContent = text; },
    saveSetting: function (key, value) { try { localStorage.setItem('vramcalc.' + key, value); } catch (e) { /* storage disabled */ } },
    loadSetting: function (key) { try { return localStorage.getItem('vramcalc.' + key) || ''; } catch (e) { return ''; } },
    firstFrame: function () {
      window.vramcalcPage.firstFrameMs = performance.now();
      loading.style.display = 'none';
      resize();
    },
    framesDrawn: function () { return ready() ? Module._vramcalc_frames_drawn() : 0; },
    timeCatalogSolve: function (repeats) { return Module.ccall('vramcalc_time_catalog_solve', 'number', ['number'], [repeats || 20]); },
    startMs: t0,
    toC: function (s) {  // a malloc'ed UTF-8 copy for C++ (web/main_web.cpp frees it)
      var n = lengthBytesUTF8(s) + 1, p = Module._malloc(n);
      stringToUTF8(s, p, n);
      return p;
    },
  };

  window.Module = {
    canvas: canvas,
    print: function (text) { console.log(text); },
    printErr: function (text) { console.warn(text); },
    setStatus: function (text) { if (text) document.getElementById('loading-text').textContent = text; },
    onAbort: function (what) { fail(String(what)); },
  };
  if (typeof WebAssembly !== 'object') fail('this browser has no WebAssembly.');
})();
