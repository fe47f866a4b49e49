// The page's elements, its scripts loaded later (the calculator, the JS API, the on-demand modules) and
// the bridge to the C++ side (Module).

var canvas = document.getElementById('canvas');
var summary = document.getElementById('summary');
var loading = document.getElementById('loading');
var params = new URLSearchParams(location.search);
var t0 = performance.now();
var modules = {};  // scripts loaded on demand, by file (loadOnce)

// The page's scripts loaded later: the calculator once the skeleton shows, the checkpoint reader on its click.
function loadScript(src, onload, onerror) {
  var s = document.createElement('script');
  s.src = src;
  if (onload) s.onload = onload;
  s.onerror = onerror;
  document.head.appendChild(s);
}
// A script loaded on its first use, once; a failed load is forgotten, so the next use tries again.
function loadOnce(file) {
  if (!modules[file]) modules[file] = new Promise(function (ok, no) { loadScript(file, ok, no); })
    .catch(function (e) { delete modules[file]; throw e; });
  return modules[file];
}
// An on-demand module: its script loaded once, and `factory`, the global it defines, run once.
var instances = {};
function loadModule(file, factory) {
  if (!instances[file]) instances[file] = loadOnce(file).then(function () { return window[factory](); })
    .catch(function (e) { delete instances[file]; throw e; });
  return instances[file];
}
function toModule(m, text) {  // a malloc'ed C string in module m's heap (the caller frees it)
  var n = m.lengthBytesUTF8(text) + 1, p = m._malloc(n);
  m.stringToUTF8(text, p, n);
  return p;
}
function ready() { return typeof Module !== 'undefined' && Module.calledRun; }
function wake() { if (ready()) Module._vramcalc_wake(); }
function call(fn, types, args) { if (ready()) Module.vramcalcCallWithStrings(fn, null, types, args, false); }  // heap, not stack (api_post.js)
function fail(text) {
  loading.style.display = 'flex';
  loading.className = 'error';
  loading.textContent = 'vramcalc could not start: ' + text;
}
