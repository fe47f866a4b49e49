// The UI's glyphs, drawn by the browser.

// The UI's glyphs for web/browser_fonts.cpp, drawn with the canvas 2D text of the system's sans-serif
// font (the desktop app has its bundled Karla instead). Each size is scaled so that a reference line is
// as wide as Karla sets it (Karla's advances: 30.74 x the ImGui font size for REF, measured in Chromium),
// so that layouts made for Karla keep their widths, and so that ascent + descent fit the line height.
// Glyphs are packed in rows of a 1024-pixel-wide atlas, leaving its top-left 4x4 pixels for ImGui.
function rasterGlyphs(sizes, codes) {
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
}
