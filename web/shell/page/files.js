// What arrives from outside the canvas: a paste, a changed link, a file opened or dropped.

window.addEventListener('paste', function (e) {
  call('vramcalc_on_paste', ['string'], [e.clipboardData ? e.clipboardData.getData('text/plain') : '']);
});
window.addEventListener('hashchange', function () { call('vramcalc_on_hash', ['string'], [location.hash]); });

// The core's one limit on text handed in (json_text.hpp kMaxInputBytes): a config.json is a few KB.
var maxFileBytes = 8 << 20;
// Why a file or an answer cannot be handed to the calculator as text, or '' when it can: too large, or
// a NUL byte, which the C string it travels in would silently end at (issue 42).
function unreadable(text, size) {
  if (size > maxFileBytes) return 'is ' + (size / 1048576).toFixed(1) + ' MiB; a config or scenario is at most 8 MiB';
  var nul = text ? text.indexOf('\u0000') : -1;
  return nul >= 0 ? 'holds a NUL byte at offset ' + nul + ': not a text file' : '';
}
function readFile(file) {
  if (!file) return;
  var why = unreadable('', file.size);
  if (why) { call('vramcalc_on_file_refused', ['string', 'string'], [file.name, why]); return; }
  file.text().then(function (text) {
    why = unreadable(text, 0);
    if (why) call('vramcalc_on_file_refused', ['string', 'string'], [file.name, why]);
    else call('vramcalc_on_file', ['string', 'string'], [file.name, text]);
  }, function () { call('vramcalc_on_file_refused', ['string', 'string'], [file.name, 'could not be read']); });
}
// A file dragged over the page: a cover says what dropping it does (dragenter/dragleave pair up per
// element crossed, so they are counted).
var dropCover = document.getElementById('drop'), dragDepth = 0;
function showDrop(on) { dragDepth = on ? dragDepth : 0; dropCover.style.display = on ? 'flex' : 'none'; }
function carriesFiles(e) { return e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types || [], 'Files') >= 0; }
window.addEventListener('dragenter', function (e) {
  if (!carriesFiles(e)) return;
  e.preventDefault();
  dragDepth++;
  showDrop(true);
});
window.addEventListener('dragleave', function () { if (--dragDepth <= 0) showDrop(false); });
window.addEventListener('dragover', function (e) { e.preventDefault(); });
window.addEventListener('drop', function (e) {
  e.preventDefault();
  showDrop(false);
  if (e.dataTransfer && e.dataTransfer.files.length) readFile(e.dataTransfer.files[0]);
});
