#!/usr/bin/env bash
# Checks .github/workflows/*.yml offline:
#  1. schema: @action-validator/cli (npm; the SchemaStore GitHub-workflow schema compiled into its
#     WebAssembly core, so it runs without downloading anything beyond the npm package itself), which
#     also checks that path globs match files;
#  2. project rules, read from the parsed YAML (npm `yaml`): every action pinned to a full commit SHA
#     with a version comment, least-privilege permissions (a read-only top level, no write-all), a
#     concurrency group per workflow, a timeout on every job that runs steps.
# actionlint is not in Debian 12 and its npm wrappers download a binary, so it is not used here.
# The npm packages go to .deps/check-workflows (git-ignored); a second run installs nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.deps/check-workflows"
say()  { printf '\033[1m[check-workflows]\033[0m %s\n' "$*"; }
fail() { printf '\033[1;31m[check-workflows] error:\033[0m %s\n' "$*" >&2; exit 1; }

command -v node >/dev/null || fail "node is needed (Debian: apt-get install nodejs npm)"
if [ ! -f "$TOOLS/node_modules/@action-validator/core/action_validator_bg.wasm" ] || [ ! -f "$TOOLS/node_modules/yaml/package.json" ]; then
  command -v npm >/dev/null || fail "npm is needed to install the validator once"
  say "installing @action-validator/cli 0.6.0 and yaml 2 into .deps/check-workflows (npm registry)"
  mkdir -p "$TOOLS"
  npm install --prefix "$TOOLS" --no-save --no-audit --no-fund --ignore-scripts \
    @action-validator/cli@0.6.0 @action-validator/core@0.6.0 yaml@2.6.1 >/dev/null \
    || fail "npm install failed (is the npm registry reachable?)"
fi

cd "$ROOT"
shopt -s nullglob
files=(.github/workflows/*.yml .github/workflows/*.yaml)
[ ${#files[@]} -gt 0 ] || fail "no workflow files in .github/workflows"

rc=0
for f in "${files[@]}"; do
  if node "$TOOLS/node_modules/@action-validator/cli/cli.mjs" "$f" >/tmp/check-workflows.$$ 2>&1; then
    say "schema ok: $f"
  else
    cat /tmp/check-workflows.$$ >&2
    say "schema FAILED: $f"
    rc=1
  fi
done
rm -f /tmp/check-workflows.$$

NODE_PATH="$TOOLS/node_modules" node - "${files[@]}" <<'JS' || rc=1
const fs = require('fs');
const YAML = require('yaml');
let problems = 0;
const bad = (file, msg) => { console.error(`${file}: ${msg}`); problems++; };
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, 'utf8');
  const doc = YAML.parseDocument(text);
  if (doc.errors.length) { doc.errors.forEach(e => bad(file, `YAML: ${e.message}`)); continue; }
  const wf = doc.toJS();
  // Pins: owner/repo[/path]@<40 hex> # vX..., on the same line. Local (./) reusable workflows are exempt.
  text.split('\n').forEach((line, i) => {
    const m = line.match(/^\s*(?:-\s*)?uses:\s*([^\s#]+)\s*(#.*)?$/);
    if (!m || m[1].startsWith('./') || m[1].startsWith('docker://')) return;
    if (!/^[\w.-]+\/[\w.\/-]+@[0-9a-f]{40}$/.test(m[1])) bad(file, `line ${i + 1}: ${m[1]} is not pinned to a full commit SHA`);
    else if (!m[2] || !/#\s*v\d/.test(m[2])) bad(file, `line ${i + 1}: ${m[1]} lacks a "# vX.Y.Z" comment naming the version`);
  });
  // Least privilege: an explicit, read-only top level; jobs widen only what they need, never write-all.
  const perms = wf.permissions;
  if (perms === undefined) bad(file, 'no top-level permissions (the default token may be read-write)');
  else if (typeof perms === 'string' ? perms !== 'read-all' && perms !== '{}' :
           Object.values(perms).some(v => v !== 'read' && v !== 'none'))
    bad(file, 'top-level permissions must be read-only; grant writes per job');
  if (!wf.concurrency) bad(file, 'no concurrency group');
  for (const [id, job] of Object.entries(wf.jobs || {})) {
    if (job.permissions === 'write-all') bad(file, `job ${id}: permissions write-all`);
    if (job.steps && job['timeout-minutes'] === undefined) bad(file, `job ${id}: no timeout-minutes`);
    if (job.uses && job.uses.startsWith('./') && !fs.existsSync(job.uses)) bad(file, `job ${id}: ${job.uses} does not exist`);
  }
}
if (problems) { console.error(`${problems} problem(s)`); process.exit(1); }
console.log('[check-workflows] pinning, permissions, concurrency and timeouts ok');
JS
[ $rc -eq 0 ] || fail "workflow check failed"
say "all workflow files pass"
