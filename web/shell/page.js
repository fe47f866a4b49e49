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

  function pageLink() {
    var q = new URLSearchParams(location.search);
    q.delete('embed');
    var s = q.toString();
    return location.origin + location.pathname + (s ? '?' + s : '');
  }

  // window.vramcalc, the JS API (docs/embedding.md), is the headless vramcalc-api.js: loaded the first
  // time a script reads vramcalc.ready (the calculator itself never needs it). Its post-js then replaces
  // this stand-in's members; until then a call says what to wait for.
  var api = window.vramcalc = {};
  ['estimate', 'solveCatalog', 'presets', 'importConfig'].forEach(function (name) {
    api[name] = function () { throw new Error('vramcalc is still loading: wait for vramcalc.ready'); };
  });
  Object.defineProperty(api, 'ready', {configurable: true, enumerable: true, get: function () {
    return loadOnce('vramcalc-api.js').then(function () { return api.ready; }, function () {
      throw new Error('vramcalc-api.js could not be loaded (offline, or the page was moved without it)');
    });
  }});

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
      input.accept = '.json,.yaml,.yml,.txt,.sh,application/json,text/plain';
      input.onchange = function () { readFile(input.files[0]); };
      input.click();
    },
    fetchText: function (url) {
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
    },
    // Checkpoint headers over HTTP Range (imgui_app/src/panel_checkpoint.cpp): the core's reader is a
    // separate module, loaded on this click; it names each range, this fetches it. A server that answers
    // a Range request with the whole file (200) is cut off at once: the rest would be the weights.
    readCheckpoint: function (base, file, ifMissing) {
      function report(json) { call('vramcalc_on_checkpoint', ['string'], [json]); }
      loadModule('vramcalc-checkpoint.js', 'vramcalcCheckpoint').then(function (m) {
        var f = toModule(m, file), g = toModule(m, ifMissing);
        m._ckpt_open(f, g);
        m._free(f);
        m._free(g);
        (function step() {
          var json = m.UTF8ToString(m._ckpt_state()), q = JSON.parse(json), range = q.last >= 0, ctl = new AbortController();
          report(json);
          if (!q.busy) return;
          function fail(why) { var p = toModule(m, why); m._ckpt_fail(p); m._free(p); step(); }
          fetch(base + q.file, {credentials: 'omit', signal: ctl.signal, headers: range ? {Range: 'bytes=' + q.first + '-' + q.last} : {}}).then(function (r) {
            if (range && r.status === 200) {
              ctl.abort();
              return fail('the server ignored the Range request (HTTP 200 with the whole file, ' +
                          (r.headers.get('content-length') || 'unknown') + ' bytes), so the download was stopped');
            }
            if (r.status === 404) { m._ckpt_missing(); return step(); }
            if (!r.ok) return fail('HTTP ' + r.status + (r.status === 401 || r.status === 403 ? ' (the model is gated or private)' : ''));
            return r.arrayBuffer().then(function (b) {
              var p = m._malloc(b.byteLength + 1);
              m.HEAPU8.set(new Uint8Array(b), p);
              m._ckpt_receive(p, b.byteLength);
              m._free(p);
              step();
            });
          }).catch(function () {
            fail(navigator.onLine === false ? 'you are offline' :
                 'network error: the server does not let this page read it (no CORS headers), or it cannot be reached');
          });
        })();
      }, function () {
        report('{"error":"the checkpoint reader (vramcalc-checkpoint.js) did not load"}');
      });
    },
    // Another tool's config (a `vllm serve` line, a DeepSpeed JSON, a YAML recipe) pasted, dropped or
    // opened: the importer and its YAML parser are a separate module (web/import_module.cpp), loaded on
    // the first such config so that they cost the page nothing until then.
    importConfig: function (name, text) {
      function report(json) { call('vramcalc_on_imported', ['string', 'string'], [name, json]); }
      loadModule('vramcalc-import.js', 'vramcalcImport').then(function (m) {
        var p = toModule(m, text), json = m.UTF8ToString(m._import_run(p, m.lengthBytesUTF8(text)));
        m._free(p);
        report(json);
      }, function () {
        report('{"ok":false,"errors":[{"field":"","message":"the config importer (vramcalc-import.js) did not load"}]}');
      });
    },
    // A config.json that a scenario names (pasted, dropped, fetched from the Hub, in a link or the saved
    // scenario): the page's wasm has no config.json reader, the importer's module reads it
    // (web/import_module.cpp model_run), loaded on the first such config; the page says so meanwhile.
    readModel: function (key, config, name, prefix) {
      function report(json) { call('vramcalc_on_model', ['string', 'string'], [key, json]); }
      loadModule('vramcalc-import.js', 'vramcalcImport').then(function (m) {
        var p = toModule(m, config), q = toModule(m, name), r = toModule(m, prefix);
        var json = m.UTF8ToString(m._model_run(p, m.lengthBytesUTF8(config), q, r));
        m._free(p);
        m._free(q);
        m._free(r);
        report(json);
      }, function () {
        report(JSON.stringify({errors: [{field: prefix, message: 'the model reader (vramcalc-import.js) did not load: reload the page to try again'}]}));
      });
    },
    // A PyTorch print(model) for the layer-stack editor: the converter is in the importer's module too.
    convertRepr: function (text, input) {
      function report(json) { call('vramcalc_on_repr', ['string'], [json]); }
      loadModule('vramcalc-import.js', 'vramcalcImport').then(function (m) {
        var p = toModule(m, text), q = toModule(m, input), json = m.UTF8ToString(m._repr_run(p, m.lengthBytesUTF8(text), q));
        m._free(p);
        m._free(q);
        report(json);
      }, function () {
        report('{"ok":false,"errors":[{"field":"","message":"the converter (vramcalc-import.js) did not load"}]}');
      });
    },
    // The UI's glyphs for web/browser_fonts.cpp, drawn with the canvas 2D text of the system's sans-serif
    // font (the desktop app has its bundled Karla instead). Each size is scaled so that a reference line is
    // as wide as Karla sets it (Karla's advances: 30.74 x the ImGui font size for REF, measured in Chromium),
    // so that layouts made for Karla keep their widths, and so that ascent + descent fit the line height.
    // Glyphs are packed in rows of a 1024-pixel-wide atlas, leaving its top-left 4x4 pixels for ImGui.
    rasterGlyphs: function (sizes, codes) {
      var family = 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif', REF = 'The quick brown fox jumps over the lazy dog 0123456789 GiB, fits: 80 % (HBM3)';
      var c = document.createElement('canvas'), g = c.getContext('2d', {willReadFrequently: true}), W = 1024;
      var out = {metrics: [], glyphs: []}, items = [], x = 4, y = 0, rowH = 4;
      sizes.forEach(function (size) {
        g.font = '100px ' + family;
        var r = g.measureText(REF), span = (r.fontBoundingBoxAscent + r.fontBoundingBoxDescent) / 100;
        var px = size * Math.min(30.74 / (r.width / 100), 1 / span);
        g.font = px + 'px ' + family;
        var fm = g.measureText('H');
        out.metrics.push(fm.fontBoundingBoxAscent, fm.fontBoundingBoxDescent, px);
        codes.forEach(function (code) {
          var ch = String.fromCodePoint(code), t = g.measureText(ch);
          var left = Math.ceil(t.actualBoundingBoxLeft) + 1, top = Math.ceil(t.actualBoundingBoxAscent) + 1;
          var w = Math.max(left + Math.ceil(t.actualBoundingBoxRight) + 1, 1), h = Math.max(top + Math.ceil(t.actualBoundingBoxDescent) + 1, 1);
          if (x + w > W) { x = 0; y += rowH + 1; rowH = 0; }
          items.push([px, ch, x + left, y + top]);
          out.glyphs.push(x, y, w, h, left, top, t.width);
          x += w + 1;
          rowH = Math.max(rowH, h);
        });
      });
      c.width = out.width = W;
      c.height = out.height = y + rowH + 1;
      g.fillStyle = '#fff';
      items.forEach(function (it) { g.font = it[0] + 'px ' + family; g.fillText(it[1], it[2], it[3]); });
      var rgba = g.getImageData(0, 0, c.width, c.height).data;
      out.alpha = new Uint8Array(c.width * c.height);
      for (var i = 0; i < out.alpha.length; i++) out.alpha[i] = rgba[4 * i + 3];
      return out;
    },
    setHash: function (hash) {
      if (location.hash.slice(1) === hash) return;
      history.replaceState(null, '', location.pathname + location.search + '#' + hash);
    },
    pageLink: pageLink,
    openUrl: function (url) { window.open(url, '_blank', 'noopener'); },
    setSummary: function (text) { summary.textContent = text; },
    textInputWanted: textInputWanted,
    requestFrame: requestFrame,
    contentHeight: function (cssPixels) {  // ?embed=1: the host sizes the frame (docs/embedding.md)
      if (window.parent !== window) window.parent.postMessage({type: 'vramcalc:height', height: Math.ceil(cssPixels)}, '*');
    },
    saveSetting: function (key, value) { try { localStorage.setItem('vramcalc.' + key, value); } catch (e) { /* storage disabled */ } },
    loadSetting: function (key) { try { return localStorage.getItem('vramcalc.' + key) || ''; } catch (e) { return ''; } },
    firstFrame: function () {
      window.vramcalcPage.firstFrameMs = performance.now();
      loading.style.display = 'none';
      resize();
      if (!window.vramcalcPage.embed) canvas.focus({preventScroll: true});  // keys work at once (an iframe leaves the host's focus alone)
    },
    framesDrawn: function () { return ready() ? Module._vramcalc_frames_drawn() : 0; },
    navFocus: function () { return ready() ? UTF8ToString(Module._vramcalc_nav_focus()) : ''; },  // tests: the focused control
    status: function () { return ready() ? UTF8ToString(Module._vramcalc_status()) : ''; },  // tests: the status line
    activeText: function () { return ready() ? UTF8ToString(Module._vramcalc_active_text()) : ''; },
    rectOf: function (label) {  // tests: [x0, y0, x1, y1] in CSS pixels of a control, a popup's row, or "popup"
      var r = ready() ? Module.ccall('vramcalc_rect_of', 'string', ['string'], [label]) : '';
      return r ? r.split(',').map(Number) : null;
    },
    controlAt: function (label) {  // tests: [x, y] of a control's centre in CSS pixels, or null
      var r = ready() ? Module.ccall('vramcalc_control_at', 'string', ['string'], [label]) : '';
      return r ? r.split(',').map(Number) : null;
    },
    formField: function (ptr) {  // tests: {value, error} the form shows at a scenario key's JSON pointer
      return ready() ? JSON.parse(Module.ccall('vramcalc_form_field', 'string', ['string'], [ptr])) : null;
    },
    embedSnippet: function () { return ready() ? UTF8ToString(Module._vramcalc_embed_snippet()) : ''; },
    scrollOf: function (x, y) { return ready() ? Module._vramcalc_scroll_of(x, y) : -1; },         // tests: the scroll of the window at x, y
    computeMs: function () { return ready() ? Module._vramcalc_compute_ms() : -1; },  // report: the last change's compute time
    timeCatalogSolve: function (repeats) { return Module.ccall('vramcalc_time_catalog_solve', 'number', ['number'], [repeats || 20]); },
    startMs: t0,
    toC: function (s) { return toModule(Module, s); },  // a malloc'ed UTF-8 copy for C++ (web/main_web.cpp frees it)
  };

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
})();
