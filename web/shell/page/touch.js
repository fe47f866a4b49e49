// A finger on the canvas: taps, drags and flings.

// Touch: ours too (the GLFW port reads positions from event.touch, which does not exist). One finger
// dragged past a few pixels scrolls the window under it, content following the finger; a touch that
// stays put is a click, run synchronously so that what it starts (the on-screen keyboard, a copy, a
// new tab) happens inside the user's gesture. A finger lifted while moving flings: the content glides
// on and slows down (the velocity of the last three moves, decaying with a time constant of 325 ms, as
// iOS and Android scroll views do); a finger held still before it lifts does not fling, nor does a new touch.
var touch = null, lastPointerTouch = false, tapSlop = 8, fling = null;
function flingStep(t) {
  if (!fling) return;
  var dt = Math.min(t - fling.t, 50);
  fling.t = t;
  fling.v *= Math.exp(-dt / 325);
  var moved = Math.abs(fling.v) > 0.02 && Module._vramcalc_scroll(fling.x, fling.y, 0, fling.v * dt, 0, performance.now());
  if (moved) requestAnimationFrame(flingStep);
  else fling = null;
}
function startFling(x, y, now) {
  var s = touch.samples, n = s.length, last = s[n - 1];
  if (n < 3) return;
  var from = s[Math.max(0, n - 4)], gap = (last[0] - from[0]) / (n - 1 - Math.max(0, n - 4));  // ms between the last moves
  if (now - last[0] > Math.max(100, 2 * gap)) return;  // held still before lifting: no fling
  var v = (from[1] - last[1]) / Math.max(1, last[0] - from[0]);  // CSS px per ms, up positive
  if (Math.abs(v) < 0.3) return;
  fling = {x: x, y: y, v: v, t: performance.now()};
  requestAnimationFrame(flingStep);
}
window.addEventListener('touchstart', function (e) {
  if (e.target !== canvas) return;
  e.stopPropagation();
  e.preventDefault();
  lastPointerTouch = true;
  fling = null;
  if (!ready() || e.touches.length !== 1) { touch = null; return; }
  var t = e.changedTouches[0], p = canvasPoint(t);
  touch = {id: t.identifier, x0: p[0], y0: p[1], x: p[0], y: p[1], dragging: false, samples: [[e.timeStamp, p[1]]]};
}, {capture: true, passive: false});
function ownTouch(e) {
  if (!touch) return null;
  for (var i = 0; i < e.changedTouches.length; i++)
    if (e.changedTouches[i].identifier === touch.id) return canvasPoint(e.changedTouches[i]);
  return null;
}
window.addEventListener('touchmove', function (e) {
  if (e.target !== canvas) return;
  e.stopPropagation();
  e.preventDefault();
  var p = ownTouch(e);
  if (!p) return;
  if (!touch.dragging && Math.hypot(p[0] - touch.x0, p[1] - touch.y0) > tapSlop) touch.dragging = true;
  if (touch.dragging) Module._vramcalc_scroll(touch.x0, touch.y0, touch.x - p[0], touch.y - p[1], 0, performance.now());
  touch.x = p[0];
  touch.y = p[1];
  touch.samples.push([e.timeStamp, p[1]]);
}, {capture: true, passive: false});
window.addEventListener('touchend', function (e) {
  if (e.target !== canvas) return;
  e.stopPropagation();
  e.preventDefault();
  var p = ownTouch(e);
  if (p && !touch.dragging) syncTextInput(Module._vramcalc_tap(p[0], p[1]));
  if (p && touch.dragging) startFling(touch.x0, touch.y0, e.timeStamp);
  if (p) touch = null;
}, {capture: true, passive: false});
window.addEventListener('touchcancel', function (e) {
  if (e.target !== canvas) return;
  e.stopPropagation();
  touch = null;
}, true);
