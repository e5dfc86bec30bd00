// Summary of a V8 .cpuprofile (node --cpu-prof): self time per function and per package.
import { readFileSync } from 'node:fs';

function shortUrl(url) {
  if (!url) return '';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}

function category(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node core';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.includes('/dist/src/')) return 'service code (dist/src)';
  return shortUrl(url);
}

const keyOf = (node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || '(anonymous)';
  return url ? `${name}  ${shortUrl(url)}:${lineNumber + 1}` : name;
};

const addTo = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);

/** The `top` entries of `map` by amount, each with its share of `total` in per cent (one decimal). */
const topShares = (map, top, total) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, amount]) => ({ name, amount, percent: Math.round((amount / total) * 1000) / 10 }));

/**
 * Inclusive ("total") time: each sample counts once for every distinct function and package on its
 * stack, which shows the cost of a layer (a guard, a pipe, the ORM) with everything it calls.
 */
function inclusiveCounter(profile, byId) {
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const functions = new Map();
  const packages = new Map();
  const add = (leafId, us) => {
    const fns = new Set();
    const pkgs = new Set();
    for (let id = leafId; id !== undefined; id = parentOf.get(id)) {
      const node = byId.get(id);
      const { url, functionName } = node.callFrame;
      if (functionName === '(root)' || functionName === '(idle)') continue;
      if (url && !url.startsWith('node:')) fns.add(keyOf(node));
      pkgs.add(category(url, functionName || '(anonymous)'));
    }
    for (const k of fns) addTo(functions, k, us);
    for (const k of pkgs) addTo(packages, k, us);
  };
  return { add, functions, packages };
}

/** Self time by node id of the samples inside `windows`, and the inclusive counts of the same. */
function sampleTimes(profile, byId, windows) {
  const selfUs = new Map();
  const inclusive = inclusiveCounter(profile, byId);
  const inWindow = (ms) => windows.length === 0 || windows.some(([from, to]) => ms >= from && ms <= to);
  let atUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    atUs += profile.timeDeltas[i] ?? 0;
    if (!inWindow(atUs / 1000)) continue;
    const delta = profile.timeDeltas[i + 1] ?? 0;
    addTo(selfUs, profile.samples[i], delta);
    inclusive.add(profile.samples[i], delta);
  }
  return { selfUs, inclusive };
}

/** Self time by function and by package, idle apart. */
function selfTimes(selfUs, byId) {
  const functions = new Map();
  const packages = new Map();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    const name = node.callFrame.functionName || '(anonymous)';
    totalUs += us;
    if (name === '(idle)') {
      idleUs += us;
      continue;
    }
    addTo(functions, keyOf(node), us);
    addTo(packages, category(node.callFrame.url, name), us);
  }
  return { functions, packages, totalUs, idleUs };
}

/**
 * Top functions and packages by self time; idle time is left out of the percentages. `windows`
 * ([fromMs, toMs] since the process started) keeps only the samples inside them (the measured runs,
 * not start-up or warm-up); the profile's clock starts within milliseconds of the process.
 */
export function summariseCpuProfile(file, top = 30, windows = []) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const { selfUs, inclusive } = sampleTimes(profile, byId, windows);
  const { functions, packages, totalUs, idleUs } = selfTimes(selfUs, byId);
  const busyUs = totalUs - idleUs;
  const rank = (map) =>
    topShares(map, top, busyUs).map(({ name, amount, percent }) => ({
      name,
      ms: Math.round(amount / 1000),
      percent,
    }));
  return {
    file,
    windows: windows.map(([from, to]) => [Math.round(from), Math.round(to)]),
    totalMs: Math.round(totalUs / 1000),
    busyMs: Math.round(busyUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    functions: rank(functions),
    packages: rank(packages),
    inclusiveFunctions: rank(inclusive.functions),
    inclusivePackages: rank(inclusive.packages),
  };
}

export function formatProfile(summary) {
  const lines = [];
  lines.push(
    `CPU profile of the service (${summary.file}), measured runs only: ${summary.busyMs} ms busy, ` +
      `${summary.idleMs} ms idle; self time, % of busy`,
  );
  lines.push('', 'By package:');
  for (const p of summary.packages.slice(0, 20))
    lines.push(`  ${String(p.percent).padStart(5)}%  ${String(p.ms).padStart(7)} ms  ${p.name}`);
  lines.push('', 'By function:');
  for (const f of summary.functions)
    lines.push(`  ${String(f.percent).padStart(5)}%  ${String(f.ms).padStart(7)} ms  ${f.name}`);
  lines.push('', 'Inclusive time (the function or package and all it calls), by package:');
  for (const p of summary.inclusivePackages.slice(0, 20))
    lines.push(`  ${String(p.percent).padStart(5)}%  ${String(p.ms).padStart(7)} ms  ${p.name}`);
  lines.push('', 'Inclusive time by function:');
  for (const f of summary.inclusiveFunctions)
    lines.push(`  ${String(f.percent).padStart(5)}%  ${String(f.ms).padStart(7)} ms  ${f.name}`);
  return lines.join('\n');
}

/**
 * Bytes allocated per function (self), per the nearest function of the service's own code on the
 * stack (what made the allocation happen) and per package, from a sampling heap profile
 * (.heapprofile, lib/allocation-sampler.cjs). Allocations count whether or not they were freed.
 */
export function summariseAllocationProfile(file, top = 25) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const functions = new Map();
  const ownCode = new Map();
  const packages = new Map();
  let total = 0;
  const walk = (node, ownFrame) => {
    const own = node.callFrame.url.includes('/dist/src/') ? keyOf(node) : ownFrame;
    if (node.selfSize > 0) {
      total += node.selfSize;
      addTo(functions, keyOf(node), node.selfSize);
      addTo(ownCode, own ?? '(no service code on the stack)', node.selfSize);
      addTo(packages, category(node.callFrame.url, node.callFrame.functionName), node.selfSize);
    }
    for (const child of node.children ?? []) walk(child, own);
  };
  walk(profile.head, undefined);
  const rank = (map) =>
    topShares(map, top, total).map(({ name, amount, percent }) => ({
      name,
      mb: Math.round(amount / 1e5) / 10,
      percent,
    }));
  return {
    file,
    totalMb: Math.round(total / 1e6),
    functions: rank(functions),
    ownCode: rank(ownCode),
    packages: rank(packages),
  };
}

export function formatAllocationProfile(summary) {
  const lines = [`Allocations in ${summary.file}: ${summary.totalMb} MB sampled`];
  const section = (title, rows) => {
    lines.push('', title);
    for (const r of rows)
      lines.push(`  ${String(r.percent).padStart(5)}%  ${String(r.mb).padStart(8)} MB  ${r.name}`);
  };
  section('By package (the allocating function):', summary.packages.slice(0, 12));
  section("By the service's own function nearest on the stack:", summary.ownCode);
  section('By allocating function:', summary.functions);
  return lines.join('\n');
}
