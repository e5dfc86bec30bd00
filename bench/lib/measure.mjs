/* global process, setInterval, clearInterval */
// Measuring a run: CPU of each process group, the service's memory, an HTTP load and its result.
import { Buffer } from 'node:buffer';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { CpuMeter, memoryOf } from './cpu.mjs';
import { forkTracked, waitForMessage } from './processes.mjs';
import { round } from './report.mjs';
import { benchDir, ctx, log, now, size } from './run-context.mjs';

/**
 * Samples the memory of the run's service (`pid`) every 200 ms, by phase. Only that process: figures
 * that point ctx.service at a second service for a while (dispatch-traced) report its memory themselves.
 */
export function trackMemory(pid) {
  ctx.memory.pid = pid;
  const timer = setInterval(() => {
    const m = memoryOf(pid);
    if (!m) return;
    ctx.memory.peakRssMb = Math.max(ctx.memory.peakRssMb, m.rssMb);
    ctx.memory.peakHwmMb = Math.max(ctx.memory.peakHwmMb, m.hwmMb);
    ctx.memory.phases[ctx.phase] = Math.max(ctx.memory.phases[ctx.phase] ?? 0, round(m.rssMb, 1));
  }, 200);
  timer.unref();
  return () => clearInterval(timer);
}

function cpuMeter() {
  return new CpuMeter(
    {
      service: () => ctx.service?.pid,
      postgres: () => ctx.postmasterPid,
      receiver: () => ctx.receiver?.pid,
      baseline: () => ctx.baselinePid,
    },
    new Set(['postgres']),
  );
}

/**
 * Starts recording the CPU each process group uses; `stop(units)` (requests or deliveries done)
 * adds the run to the CPU table with CPU milliseconds per unit, which hold up better than
 * throughput when other processes compete for the machine, and returns it.
 */
export function startCpuRun(name) {
  const app = ctx.baselinePid ? 'baseline' : 'service';
  const meter = cpuMeter().start();
  return (units) => {
    const { percent, seconds, wallS, mainThread, threads } = meter.stop();
    const msPerUnit = {};
    const appThreadsMsPerUnit = {};
    if (units > 0) {
      for (const [group, s] of Object.entries(seconds)) msPerUnit[group] = round((s * 1000) / units, 3);
      for (const [part, s] of Object.entries(threads[app] ?? {}))
        appThreadsMsPerUnit[part] = round((s * 1000) / units, 3);
    }
    const run = {
      name,
      app,
      cpu: percent,
      wallS: round(wallS, 2),
      units,
      msPerUnit,
      appMainThread: mainThread[app],
      /** The app's CPU per unit by thread: main, its busiest other thread, the rest (threadSplit). */
      appThreadsMsPerUnit,
    };
    ctx.cpuRuns.push(run);
    return run;
  };
}

/** Runs `fn` as one CPU run; `unitsOf(result)` is its work done. The run is in `result.cpu`. */
export async function withCpu(name, fn, unitsOf) {
  const stop = startCpuRun(name);
  const result = await fn();
  const run = stop(unitsOf?.(result));
  if (result && typeof result === 'object') result.cpu = run;
  return result;
}

function loadTest(base, spec, durationS) {
  const headers = { authorization: `Bearer ${spec.token}`, accept: 'application/hal+json' };
  if (spec.body !== undefined) headers['content-type'] = 'application/json';
  let next = 0;
  // A spec's own setupRequest (e.g. a header per request), or many tokens: each request carries the
  // next one (a different rate-limit key, the same user).
  const requests = spec.setupRequest
    ? [{ setupRequest: spec.setupRequest }]
    : spec.tokens
      ? [
          {
            setupRequest: (req) => {
              req.headers = {
                ...req.headers,
                authorization: `Bearer ${spec.tokens[next++ % spec.tokens.length]}`,
              };
              return req;
            },
          },
        ]
      : undefined;
  return autocannon({
    url: base + spec.path,
    method: spec.method,
    headers,
    body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    requests,
    connections: size.connections,
    duration: durationS,
    pipelining: 1,
    timeout: 10,
  });
}

/**
 * `n` valid tokens of the user of `token`, differing only in `iat`: the service's rate limiter
 * counts each separately (it keys on the token), its user check caches them as one user.
 */
export function mintTokens(token, jwtSecret, n) {
  const [header, payload] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  return Array.from({ length: n }, (_, k) => {
    const body = Buffer.from(JSON.stringify({ ...claims, iat: claims.iat - 1 - k })).toString('base64url');
    const signature = createHmac('sha256', Buffer.from(jwtSecret, 'utf8'))
      .update(`${header}.${body}`)
      .digest('base64url');
    return `${header}.${body}.${signature}`;
  });
}

/** Load without measuring: a warm-up of the service (JIT, heap, pool connections, PostgreSQL's caches). */
export const warmUpLoad = (base, spec, durationS) => loadTest(base, spec, durationS);

/** Warm-up, then the measured run: throughput (2xx per second) and latency. */
export async function measureApi(label, base, spec, pid) {
  if (size.warmupS > 0) await loadTest(base, spec, size.warmupS);
  ctx.baselinePid = pid;
  const from = now();
  const r = await withCpu(
    label,
    () => loadTest(base, spec, size.durationS),
    (result) => result['2xx'],
  );
  // The measured windows of the service, relative to its start: the profile summary keeps only these.
  if (pid === undefined)
    ctx.profileWindows.push([from - ctx.service.spawnedAt, now() - ctx.service.spawnedAt]);
  ctx.baselinePid = undefined;
  const result = {
    value: round(r['2xx'] / r.duration),
    unit: 'req/s',
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r['2xx'],
    cpuMsPerRequest: r.cpu.msPerUnit,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    durationS: r.duration,
  };
  log(
    `${label}: ${result.value} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms` +
      (result.non2xx || result.errors ? ` (non-2xx ${result.non2xx}, errors ${result.errors})` : ''),
  );
  return result;
}

/** Same keys, recursively (values aside): the baselines must answer the same shape. */
export function shapeOf(value) {
  if (Array.isArray(value)) return value.length > 0 ? [shapeOf(value[0])] : [];
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.keys(value).map((k) => [k, shapeOf(value[k])]));
  return typeof value;
}

export async function startApiBaseline(modeName, env) {
  const child = forkTracked(`baseline-${modeName}`, join(benchDir, 'baseline-api.mjs'), {
    env: { ...process.env, ...env, MODE: modeName },
  });
  const { port } = await waitForMessage(child, 'ready');
  return { child, base: `http://127.0.0.1:${port}` };
}
