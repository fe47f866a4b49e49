// The canvas's size in device pixels and the frame loop.

// The canvas holds device pixels (crisp on HiDPI); CSS sizes it to the window.
function resize() {
  var dpr = window.devicePixelRatio || 1;
  var w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  wake();
}
window.addEventListener('resize', function () { resize(); if (ready()) Module._vramcalc_reveal_active(); });
resize();

// The frame loop: an animation frame only while the C++ side asks for one (vramcalc_frame returns 0 once
// nothing changed for a few frames); every input, resize or answer wakes it (main_web.cpp wake()).
var frameRequested = false;
function onFrame() {
  frameRequested = false;
  if (Module._vramcalc_frame()) requestFrame();
}
function requestFrame() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(onFrame);
}
['focus', 'visibilitychange'].forEach(function (type) { window.addEventListener(type, wake, {passive: true, capture: true}); });
window.addEventListener('blur', function () { if (ready()) Module._vramcalc_blur(); });
function watchDpr() {  // a window moved to a screen of another density, or the page was zoomed
  var mq = window.matchMedia('(resolution: ' + (window.devicePixelRatio || 1) + 'dppx)');
  mq.addEventListener('change', function once() { mq.removeEventListener('change', once); resize(); watchDpr(); });
}
if (window.matchMedia) watchDpr();
