// Start-up: the calculator's script loaded once the HTML skeleton is on screen.

window.Module = {
  canvas: canvas,
  print: function (text) { console.log(text); },
  printErr: function (text) { console.warn(text); },
  setStatus: function (text) { if (text) document.getElementById('loading-text').textContent = text; },
  onAbort: function (what) { fail(String(what)); },
};
if (typeof WebAssembly !== 'object') { fail('this browser has no WebAssembly.'); return; }

// Until the first frame the HTML skeleton says which scenario is being computed (ids as the link
// names them; no figure: every number comes from the calculator). The calculator's script starts
// once that skeleton is on screen: its start-up (WebGL context, presets, the first bill) holds the
// main thread for a few hundred ms, and started earlier it kept the browser from painting anything.
// The wasm itself is already downloading (index.html preloads it).
var link = new URLSearchParams(location.hash.slice(1)), named = [];
['model', 'method', 'workload', 'gpu'].forEach(function (k) { if (link.get(k)) named.push(link.get(k)); });
if (named.length) document.getElementById('sk-verdict').textContent = 'Computing the memory bill for ' + named.join(', ') + '\u2026';
var started = false;
function start() {
  if (started) return;
  started = true;
  loadScript('vramcalc.js', null, function () { fail('vramcalc.js could not be loaded (offline, or the page was moved without it).'); });
}
// "On screen" is the browser's first-contentful-paint entry, which arrives once the frame is presented
// (a frame merely drawn still waited for the GPU process that the WebGL context then kept busy).
if (document.hidden) start();  // a background tab paints nothing
else {
  try {
    var painted = new PerformanceObserver(function (list) {
      if (list.getEntriesByName('first-contentful-paint').length) { painted.disconnect(); start(); }
    });
    painted.observe({type: 'paint', buffered: true});
  } catch (e) {  // no paint timing in this browser: after the next frame
    requestAnimationFrame(function () { setTimeout(start, 0); });
  }
  setTimeout(start, 1000);  // in case neither comes
}
