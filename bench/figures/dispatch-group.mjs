/* global process */
// The dispatch figures, run in turn beside one raw-client baseline process: dispatch,
// dispatch-signing, dispatch-paced, dispatch-paced-1000, fan-out, dispatch-traced, two-instances,
// dispatch-ab, then sustained and backlog.
import { join } from 'node:path';
import { DELIVERIES_TABLE } from '../lib/config.mjs';
import {
  codesFor,
  dispatchAvailable,
  dispatchTargets,
  median,
  runServiceDispatch,
} from '../lib/dispatch.mjs';
import { withCpu } from '../lib/measure.mjs';
import { forkTracked, stopChild, waitForMessage } from '../lib/processes.mjs';
import { round } from '../lib/report.mjs';
import {
  args,
  baselineNodeArgs,
  benchDir,
  ctx,
  guarded,
  log,
  mode,
  size,
  unavailable,
  want,
} from '../lib/run-context.mjs';
import { seedReceiverTenant } from '../lib/setup.mjs';
import { backlogRateFigure } from './backlog-rate.mjs';
import { backlogFigure } from './backlog.mjs';
import { dispatchPaced1000Figure } from './dispatch-paced-1000.mjs';
import { dispatchPacedFigure } from './dispatch-paced.mjs';
import { DISPATCH_AB_TARGET, dispatchAbFigure } from './dispatch-ab.mjs';
import { dispatchSigningFigure } from './dispatch-signing.mjs';
import { DISPATCH_TRACED_TARGET, dispatchTracedFigure } from './dispatch-traced.mjs';
import { dispatchFigure } from './dispatch.mjs';
import { fanOutFigure } from './fan-out.mjs';
import { sustainedFigure } from './sustained.mjs';
import { twoInstancesFigure } from './two-instances.mjs';

export const DISPATCH_FIGURES = [
  'dispatch',
  'dispatch-signing',
  'dispatch-paced',
  'dispatch-paced-1000',
  'fan-out',
  'dispatch-traced',
  'two-instances',
  'dispatch-ab',
  'sustained',
  'backlog',
  'backlog-rate',
];

const named = (name) => args.only?.split(',').includes(name) ?? false;
/** Diagnostics with a second service process, run only when named. */
const ONLY_WHEN_NAMED = new Set([
  'two-instances', // the capacity model's check
  'dispatch-ab', // a comparison of settings or builds
]);
/** dispatch-paced-1000 is left out of --quick (it would take a tenth of its budget) unless named. */
export const wantedDispatchFigure = (name) =>
  want(name) &&
  (name === 'dispatch-paced-1000'
    ? mode !== 'quick' || named(name)
    : !ONLY_WHEN_NAMED.has(name) || named(name));

/** Without the records table, a note that the end time is the last receipt instead. */
async function deliveriesTableNote() {
  const { rows } = await ctx.pool.query('SELECT to_regclass($1) IS NOT NULL AS exists', [DELIVERIES_TABLE]);
  ctx.deliveriesTable = rows[0].exists;
  return ctx.deliveriesTable
    ? []
    : [`table ${DELIVERIES_TABLE} not found: end time is the last receipt, not the last committed record`];
}

const signingHelpers = {
  ctx,
  size,
  log,
  round,
  median,
  seedReceiverTenant,
  runServiceDispatch,
  withCpu,
  codesFor,
};

/** The figures that share the raw-client baseline process, each guarded on its own. */
async function burstFigures(targets, tableNote, basePid) {
  const run = (name, fn) => (wantedDispatchFigure(name) ? guarded([name], targets, fn) : undefined);
  await run('dispatch', () => dispatchFigure(targets.dispatch, tableNote, basePid));
  await run('dispatch-signing', async () => {
    ctx.phase = 'dispatch-signing';
    await dispatchSigningFigure(signingHelpers);
  });
  await run('dispatch-paced', () => dispatchPacedFigure(targets['dispatch-paced'], tableNote, basePid));
  await run('dispatch-paced-1000', () =>
    dispatchPaced1000Figure(targets['dispatch-paced-1000'], tableNote, basePid),
  );
  await run('fan-out', () => fanOutFigure(targets['fan-out'], tableNote, basePid));
  await run('dispatch-traced', () => dispatchTracedFigure());
  await run('two-instances', () => twoInstancesFigure(targets['two-instances']));
  await run('dispatch-ab', () => dispatchAbFigure());
}

export async function dispatchFigures() {
  const figures = DISPATCH_FIGURES.filter(wantedDispatchFigure);
  if (figures.length === 0) return;
  const targets = {
    ...dispatchTargets(),
    'dispatch-traced': `traced ≥${DISPATCH_TRACED_TARGET}× untraced`,
    'dispatch-ab': DISPATCH_AB_TARGET,
  };
  const reason = await dispatchAvailable();
  if (reason) {
    for (const f of figures) unavailable(f, reason, targets[f]);
    return;
  }
  const tableNote = await deliveriesTableNote();

  ctx.dispatchBaseline = forkTracked('baseline-dispatch', join(benchDir, 'baseline-dispatch.mjs'), {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: ctx.certs.ca },
    execArgv: baselineNodeArgs(),
  });
  await waitForMessage(ctx.dispatchBaseline, 'ready');
  await burstFigures(targets, tableNote, ctx.dispatchBaseline.pid);
  await stopChild(ctx.dispatchBaseline);

  // After the others: the backlog figure leaves a receiver origin that timed out behind it.
  if (want('sustained'))
    await guarded(['sustained'], targets, () => sustainedFigure(targets), size.sustainedS + 5);
  if (want('backlog'))
    await guarded(['backlog'], targets, () => backlogFigure(targets), 2 * size.backlogDurationS + 5);
  if (want('backlog-rate'))
    await guarded(
      ['backlog-rate'],
      targets,
      () => backlogRateFigure(targets['backlog-rate']),
      2 * size.backlogDurationS + 5,
    );
}
