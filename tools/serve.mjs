// A static file server for the built page (any static server works; this one needs only Node).
//   node tools/serve.mjs DIR [PORT]   serves DIR on http://127.0.0.1:PORT/ (default 8080)
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const root = path.resolve(process.argv[2] || 'build/wasm/dist');
const port = Number(process.argv[3] || process.env.VRAMCALC_PORT || 8080);
if (!fs.existsSync(path.join(root, 'index.html'))) {
  console.error(`serve: ${root}/index.html does not exist (build the page first: bash tools/dev.sh build)`);
  process.exit(2);
}
const types = {'.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
               '.json': 'application/json', '.png': 'image/png', '.css': 'text/css', '.md': 'text/markdown'};
http.createServer((req, res) => {
  let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (rel.endsWith('/')) rel += 'index.html';
  const file = path.join(root, path.normalize(rel));
  if (!file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404, {'Content-Type': 'text/plain'}).end('not found\n');
    return;
  }
  res.writeHead(200, {'Content-Type': types[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-cache'});
  fs.createReadStream(file).pipe(res);
}).on('error', e => {
  console.error(`serve: cannot listen on 127.0.0.1:${port}: ${e.message} (set VRAMCALC_PORT to another port)`);
  process.exit(1);
}).listen(port, '127.0.0.1', () => {
  console.log(`vramcalc page: http://127.0.0.1:${port}/   (serving ${root}; Ctrl+C stops)`);
});
