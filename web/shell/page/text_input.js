// The hidden text input that opens a phone's on-screen keyboard.

// Typing on a phone: a hidden <input> takes the focus while ImGui edits text, so the on-screen keyboard
// opens; what arrives in it (keys, IME compositions, paste) is passed to ImGui and the input emptied.
// It always holds one character, so that a keyboard's backspace has something to delete.
var textInput = document.getElementById('text-input'), sentinel = '\u00a0';
var keyCodes = {Backspace: 8, Enter: 13, Tab: 9, Escape: 27, Delete: 46, ArrowLeft: 37, ArrowRight: 39,
                ArrowUp: 38, ArrowDown: 40, Home: 36, End: 35};
function resetTextInput() {
  textInput.value = sentinel;
  textInput.setSelectionRange(1, 1);
}
var refocusing = false;
function syncTextInput(wantText) {
  if (wantText && lastPointerTouch) {
    if (document.activeElement !== textInput) {
      resetTextInput();
      textInput.focus({preventScroll: true});
    }
  } else if (!wantText && document.activeElement === textInput) {
    textInput.blur();
    canvas.focus({preventScroll: true});
  }
}
// The field being edited (main_web.cpp: -1 none, 0 digits, 1 a decimal number, 2 text) picks the
// phone's keyboard; a keyboard already open is reopened to change.
var inputModes = ['numeric', 'decimal', 'text'];
function textInputWanted(kind) {
  var mode = inputModes[kind] || 'text';
  if (kind >= 0 && textInput.inputMode !== mode) {
    textInput.inputMode = mode;
    if (document.activeElement === textInput) {
      refocusing = true;
      textInput.blur();
      textInput.focus({preventScroll: true});
      refocusing = false;
    }
  }
  syncTextInput(kind >= 0);
  revealField();
}
// The on-screen keyboard covers the bottom of the layout viewport on iOS (visualViewport shrinks, the
// window does not): the canvas then fits the visible part, and the field being edited is scrolled into it.
function revealField() {
  var vv = window.visualViewport, editing = document.activeElement === textInput;
  var h = editing && vv && vv.height < window.innerHeight - 40 ? vv.height + 'px' : '';
  if (canvas.style.height !== h) { canvas.style.height = h; resize(); }
  if (ready()) Module._vramcalc_reveal_active();
}
if (window.visualViewport) window.visualViewport.addEventListener('resize', revealField);
function sendText(text) { if (text) call('vramcalc_text', ['string'], [text]); }
['keydown', 'keypress', 'keyup'].forEach(function (type) {
  window.addEventListener(type, function (e) {
    if (e.target !== textInput) return;
    if (type !== 'keydown' || e.isComposing) return;
    var key = keyCodes[e.key];
    if (key && !e.altKey && !e.metaKey) {
      e.preventDefault();
      Module._vramcalc_key(key, e.shiftKey ? 1 : 0);
    }
  }, true);
});
textInput.addEventListener('input', function (e) {
  if (e.isComposing) return;
  var v = textInput.value;
  if (/^delete/.test(e.inputType || '') || v.length < sentinel.length) Module._vramcalc_key(keyCodes.Backspace, 0);
  else sendText(v.indexOf(sentinel) === 0 ? v.slice(sentinel.length) : v);
  resetTextInput();
});
textInput.addEventListener('compositionend', function (e) {
  sendText(e.data);
  resetTextInput();
});
textInput.addEventListener('blur', function () {
  if (refocusing) return;
  if (ready()) Module._vramcalc_text_input_blurred();
  if (canvas.style.height) { canvas.style.height = ''; resize(); }
});
