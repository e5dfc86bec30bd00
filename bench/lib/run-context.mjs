/* global process, performance, setTimeout */
// The options and the shared state of one bench run, and how a figure reports itself (or its failure).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RECEIVER_PORTS, SIZES } from './config.mjs';

export const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
export const repoRoot = dirname(benchDir);
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const log = (message) => process.stderr.write(`[bench] ${message}\n`);

export const ALL_FIGURES = [
  'api-read',
  'api-me',
  'api-write',
  'dispatch',
  'dispatch-signing',
  'dispatch-paced',
  'dispatch-paced-1000',
  'fan-out',
  'two-instances',
  'sustained',
  'backlog',
  'backlog-rate',
  'dispatch-traced',
  'dispatch-ab',
  'history',
  'publish-idempotent',
  'memory',
];
export const EVENT_TYPE = 'LICENCE_CREATED_SUCCESS';

export const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    'receiver-ports': { type: 'string' },
    // Diagnostic rows spreading the api-read/api-me load over N tokens (default: 1000 full, none quick).
    tokens: { type: 'string' },
    output: { type: 'string', default: join(benchDir, 'results.json') },
    // Debugging: after the figures, keep everything running until Ctrl-C (prints the URLs).
    hold: { type: 'boolean', default: false },
    // Exit 1 when a figure failed with an error (not when it is merely not built yet).
    strict: { type: 'boolean', default: false },
    // Diagnostics: extra node options for the service process, e.g. "--max-semi-space-size=4", and
    // for the raw clients' process of the dispatch figures (their notes say so), e.g. npm start's
    // heap settings.
    'node-args': { type: 'string' },
    'baseline-node-args': { type: 'string' },
    // Rounds of the dispatch figure (service, axios, undici in turn; the median round counts), and
    // of the paired ones (dispatch-traced, dispatch-ab).
    rounds: { type: 'string' },
    // dispatch-ab's second service (B): node options added, variables NAME=value,… and another
    // checkout's build to start it from.
    'ab-node-args': { type: 'string' },
    'ab-env': { type: 'string' },
    'ab-root': { type: 'string' },
  },
});
export const mode = args.quick ? 'quick' : 'full';
export const size = { ...SIZES[mode], ...(args.rounds ? { dispatchRounds: Number(args.rounds) } : {}) };
const only = args.only
  ? new Set(args.only.split(',').map((s) => s.trim()))
  : args.profile
    ? new Set(['api-read', 'api-me'])
    : undefined;
for (const name of only ?? []) if (!ALL_FIGURES.includes(name)) throw new Error(`unknown figure ${name}`);
export const want = (name) => !only || only.has(name);
export const receiverPorts = Number(args['receiver-ports'] ?? RECEIVER_PORTS);
/** --baseline-node-args as a list: node options of the raw clients' process. */
export const baselineNodeArgs = () => args['baseline-node-args']?.split(/\s+/).filter(Boolean) ?? [];

/** Shared state of one run. */
export const ctx = {
  figures: [],
  cpuRuns: [],
  profileWindows: [],
  service: undefined,
  pool: undefined,
  postmasterPid: undefined,
  baselinePid: undefined,
  receiver: undefined,
  receiverPorts: [],
  memory: { peakRssMb: 0, peakHwmMb: 0, phases: {} },
  phase: 'start-up',
  /** Both sides' deliveries warmed up already (figures/dispatch.mjs, warmUpDeliveries). */
  deliveriesWarm: false,
};

export function licence(code) {
  return {
    code,
    clientId: 1001,
    planId: 7,
    name: 'Bench Holder',
    email: 'holder@example.com',
    phoneNumber: '11987654321',
    status: 'CREATED',
    maxRedemptions: 5,
    pricing: 49.9,
  };
}

export function unavailable(figure, reason, target, error = false) {
  log(`${figure}: not available: ${reason}`);
  ctx.figures.push({
    figure,
    available: false,
    error,
    reason,
    value: null,
    baseline: null,
    ratio: null,
    target,
  });
}

/**
 * Runs the code of some figures; if it throws, each of them not yet reported is reported as not
 * available with the error, and the run goes on (the table is still printed; --strict exits 1).
 * `expectedS`: about how long they take, so --quick skips them if they would end past its budget.
 */
export async function guarded(names, targets, fn, expectedS = 0) {
  if (size.budgetS && now() - ctx.started + expectedS * 1000 > size.budgetS * 1000) {
    for (const name of names)
      unavailable(name, `skipped: the ${size.budgetS} s budget of --${mode} is used up`, targets[name]);
    return;
  }
  const before = ctx.figures.length;
  try {
    await fn();
  } catch (error) {
    ctx.baselinePid = undefined;
    const done = new Set(ctx.figures.slice(before).map((f) => f.figure));
    for (const name of names)
      if (!done.has(name)) unavailable(name, `error: ${error?.message ?? error}`, targets[name], true);
    log(error?.stack ?? String(error));
  }
}
