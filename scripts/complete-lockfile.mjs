/* global process, console */
// Adds lockfile entries for the other platforms' optional binary packages (@swc/core-darwin-arm64,
// @unrs/resolver-binding-win32-x64-msvc, ...). The registry mirror on our machines answers 404 for
// them, so `npm install` cannot record them, and `npm ci` then rejects the lockfile as out of sync.
// On install npm skips these entries by their os/cpu/libc fields. Run after every `npm install`:
//   node scripts/complete-lockfile.mjs package-lock.json
import { readFileSync, writeFileSync } from 'node:fs';
const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pk = lock.packages;
const platform = (name) => {
  const os = [
    'darwin',
    'win32',
    'linux',
    'android',
    'freebsd',
    'openbsd',
    'sunos',
    'aix',
    'netbsd',
    'openharmony',
    'wasm32',
  ].find((o) => name.includes(o));
  const cpu = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'x86'].find(
    (c) => new RegExp(`[-_]${c}([-_]|$)`).test(name.split('/').pop()),
  );
  const libc = name.includes('musl') ? 'musl' : name.includes('gnu') ? 'glibc' : undefined;
  return { os, cpu, libc };
};
let added = 0;
for (const [path, node] of Object.entries(pk)) {
  for (const [dep, spec] of Object.entries(node.optionalDependencies ?? {})) {
    const candidates = [`${path ? path + '/' : ''}node_modules/${dep}`, `node_modules/${dep}`];
    if (candidates.some((c) => pk[c])) continue;
    const { os, cpu, libc } = platform(dep);
    const entry = { version: spec.replace(/^[\^~=]/, ''), optional: true };
    if (node.dev) entry.dev = true;
    if (os && os !== 'wasm32') entry.os = [os];
    if (cpu) entry.cpu = [cpu];
    if (os === 'wasm32') entry.cpu = ['wasm32'];
    if (libc) entry.libc = [libc];
    pk[`node_modules/${dep}`] = entry;
    added++;
  }
}
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} entries`);
