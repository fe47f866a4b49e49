// A fake Hugging Face Hub for the page tests' checkpoint checks (file_checks.mjs).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

// A fake Hugging Face Hub on another origin serving tests/data/checkpoints/hub/<org>/<model>/<file> (and
// tests/data/checkpoints/<file> as fixtures/checkpoints): header-only files whose data region is virtual
// (zeros up to the end the header states), so Range requests are answered as a real server would without
// the weights existing. `range: false` answers every request with the whole file (200), `cors: false`
// sends no Access-Control-Allow-Origin. Every request is logged; a 200 body records how much was sent.
export const checkpoints = new URL('../data/checkpoints/', import.meta.url).pathname;
function virtualSize(file) {
  const b = fs.readFileSync(file);
  if (file.endsWith('.safetensors')) {
    const n = Number(b.readBigUInt64LE(0));
    const h = JSON.parse(b.subarray(8, 8 + n).toString());
    return 8 + n + Math.max(0, ...Object.entries(h).filter(([k]) => k !== '__metadata__').map(([, t]) => t.data_offsets[1]));
  }
  return file.endsWith('.gguf') ? b.length + (16 << 20) : b.length;
}
export async function fakeHub({range = true, cors = true} = {}) {
  const log = [];
  const srv = http.createServer((req, res) => {
    const entry = {method: req.method, path: decodeURIComponent(new URL(req.url, 'http://x').pathname), range: req.headers.range || null};
    log.push(entry);
    const head = cors ? {'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Range'} : {};
    if (req.method === 'OPTIONS') { res.writeHead(204, head).end(); return; }
    const m = entry.path.match(/^\/([^/]+)\/([^/]+)\/resolve\/main\/(.+)$/);
    const file = m && (m[1] === 'fixtures' && m[2] === 'checkpoints' ? path.join(checkpoints, m[3]) : path.join(checkpoints, 'hub', m[1], m[2], m[3]));
    if (!file || !file.startsWith(checkpoints) || !fs.existsSync(file)) { res.writeHead(404, head).end(); return; }
    const bytes = fs.readFileSync(file), size = file.endsWith('.json') ? bytes.length : virtualSize(file);
    const slice = (a, b) => {  // bytes a..b-1 of the virtual file
      const out = Buffer.alloc(b - a);
      if (a < bytes.length) bytes.copy(out, 0, a, Math.min(b, bytes.length));
      return out;
    };
    const r = range && entry.range && entry.range.match(/^bytes=(\d+)-(\d+)$/);
    if (r) {
      const a = Number(r[1]), b = Math.min(Number(r[2]) + 1, size);
      if (a >= size) { res.writeHead(416, head).end(); return; }
      res.writeHead(206, {...head, 'Content-Range': `bytes ${a}-${b - 1}/${size}`, 'Content-Length': b - a});
      res.end(slice(a, b));
      return;
    }
    // The whole file: streamed 1 MiB at a time as the client reads it, so a client that stops reading
    // (the page aborts) stops the server too; entry.sent says how far it got.
    res.writeHead(200, {...head, 'Content-Length': size});
    entry.sent = 0;
    const more = () => {
      while (entry.sent < size && !res.destroyed) {
        const n = Math.min(1 << 20, size - entry.sent);
        const ok = res.write(slice(entry.sent, entry.sent + n));
        entry.sent += n;
        if (!ok) { res.once('drain', more); return; }
      }
      if (entry.sent >= size) res.end();
    };
    res.on('close', () => { entry.closed = true; });
    more();
  });
  await new Promise(r => srv.listen(0, '127.0.0.1', r));
  return {url: `http://127.0.0.1:${srv.address().port}`, log, close: () => { srv.closeAllConnections(); srv.close(); }};
}
