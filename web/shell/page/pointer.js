// The mouse, the keys and the wheel over the canvas.

function canvasPoint(e) {
  var r = canvas.getBoundingClientRect();
  return [e.clientX - r.left, e.clientY - r.top];
}
// The mouse: its position over the canvas (or held down and dragged beyond it), its buttons; a press
// gives the canvas the keyboard focus. ImGui numbers the buttons left, right, middle.
var buttonsHeld = 0;
window.addEventListener('mousemove', function (e) {
  if (!ready()) return;
  var p = canvasPoint(e), inside = p[0] >= 0 && p[1] >= 0 && p[0] < canvas.clientWidth && p[1] < canvas.clientHeight;
  Module._vramcalc_mouse_move(inside || buttonsHeld ? p[0] : -1, p[1]);
}, true);
canvas.addEventListener('mouseleave', function () { if (ready() && !buttonsHeld) Module._vramcalc_mouse_move(-1, 0); });
function imguiButton(e) { return e.button === 1 ? 2 : e.button === 2 ? 1 : e.button; }
canvas.addEventListener('mousedown', function (e) {
  if (!ready()) return;
  canvas.focus({preventScroll: true});
  var p = canvasPoint(e);
  Module._vramcalc_mouse_move(p[0], p[1]);
  buttonsHeld |= 1 << e.button;
  Module._vramcalc_mouse_button(imguiButton(e), 1);
  e.preventDefault();  // no text selection or focus change by the browser
});
window.addEventListener('mouseup', function (e) {
  if (!ready() || !(buttonsHeld & (1 << e.button))) return;
  buttonsHeld &= ~(1 << e.button);
  Module._vramcalc_mouse_button(imguiButton(e), 0);
}, true);

// Keys (on the canvas or the page; the hidden text input has its own below) by their DOM keyCode,
// modifiers included (input_web.cpp derives Ctrl, Shift, Alt from them; Cmd works as Ctrl), and the
// characters they type. The keys the browser would act on itself (move the focus, scroll, go back) are
// the calculator's.
var ownKeys = [8, 9, 32, 33, 34, 35, 36, 37, 38, 39, 40];
['keydown', 'keyup'].forEach(function (type) {
  window.addEventListener(type, function (e) {
    if (!ready() || e.target === textInput) return;
    var down = type === 'keydown';
    Module._vramcalc_key_event(e.keyCode, down);
    if (!down) return;
    if (ownKeys.indexOf(e.keyCode) >= 0) e.preventDefault();
    if (!e.isComposing && Array.from(e.key).length === 1 && !e.metaKey && !(e.ctrlKey && !e.altKey)) sendText(e.key);
  });
});

// The wheel: ours (Emscripten 3.1.6's GLFW passed raw deltaY pixels to ImGui as notches, upside down).
// The C++ side scrolls the window under the pointer by the same distance the browser would and says
// whether it moved; if not (that window is at its end), the browser gets the event, so a page
// embedding this one in an iframe scrolls. Ctrl+wheel (and trackpad pinch) stays the browser's zoom.
window.addEventListener('wheel', function (e) {
  if (e.target !== canvas) return;
  e.stopPropagation();
  if (!ready() || e.ctrlKey) return;
  var p = canvasPoint(e), dx = e.deltaX, dy = e.deltaY;
  if (e.shiftKey && !dx) { dx = dy; dy = 0; }
  if (Module._vramcalc_scroll(p[0], p[1], dx, dy, e.deltaMode, e.timeStamp)) e.preventDefault();
}, {capture: true, passive: false});
