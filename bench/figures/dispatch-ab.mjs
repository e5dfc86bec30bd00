// Figure `dispatch-ab`, a diagnostic run only when named: the `dispatch` burst by the run's service
// (A) and by a second service (B) that differs in what the options say, in alternating rounds on
// databases seeded alike (lib/paired-services.mjs). B gets `--ab-node-args` (node options added
// to npm start's), `--ab-env` (variables, NAME=value,NAME=value) and, with `--ab-root`, is started
// from another checkout's build (its own package.json and dist/: a commit before a change, built,
// against the working tree's). The figure is B's deliveries a second over A's; the notes give each
// round's ratios of throughput, of the service's CPU per delivery and of PostgreSQL's. No target.
import { resolve } from 'node:path';
import { orderBalanced, ratiosText, runPairedRounds, startPair } from '../lib/paired-services.mjs';
import { round } from '../lib/report.mjs';
import { args, ctx, log, size } from '../lib/run-context.mjs';

export const DISPATCH_AB_TARGET = 'none: B against A, for comparing settings or builds';

/** B's settings from the options, and their description for the notes. */
function settingsOfB() {
  const nodeArgs = args['ab-node-args']?.split(/\s+/).filter(Boolean) ?? [];
  const env = Object.fromEntries(
    (args['ab-env']?.split(',').filter(Boolean) ?? []).map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`--ab-env: ${pair} is not NAME=value`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  const root = args['ab-root'] ? resolve(args['ab-root']) : undefined;
  const described = [
    nodeArgs.length > 0 ? `node options ${nodeArgs.join(' ')}` : undefined,
    Object.keys(env).length > 0 ? `variables ${Object.keys(env).join(', ')}` : undefined,
    root ? `the build in ${root}` : undefined,
  ].filter(Boolean);
  if (described.length === 0)
    log('dispatch-ab: no --ab-* option given: B is A again (an A/A run: the noise)');
  return { name: 'b', nodeArgs, env, root, text: described.join('; ') || 'the same as A' };
}

/** The ratios with the order within a round balanced out (orderBalanced), for 2 rounds or more. */
function balancedNotes(rounds) {
  if (rounds.length < 2) return [];
  const text = (key, what) => {
    const { means, median, secondSide } = orderBalanced(rounds, key);
    const list = means.map((m) => round(m, 2)).join(', ');
    return `${what}, B/A with the order balanced (each round with B second and the next, B first): ${list}; median ${round(median, 2)}; the second side of a round at ${round(secondSide, 2)} × the first's`;
  };
  return [text('ratio', 'deliveries a second'), text('cpuRatio', 'service CPU per delivery')];
}

export async function dispatchAbFigure() {
  ctx.phase = 'dispatch-ab';
  const b = settingsOfB();
  const pair = await startPair({ tenant: 'bench-ab', names: ['A', 'B'], second: b });
  log(`dispatch-ab: ${size.dispatchEvents} events × ${pair.ranges.A.count} subscriptions; B: ${b.text}`);
  const { rounds, medianRound, serviceMs, postgresMs } = await runPairedRounds(pair, 'dispatch-ab');
  const peakMb = pair.secondPeakMb();
  await pair.stop();
  const { A, B } = medianRound;
  ctx.figures.push({
    figure: 'dispatch-ab',
    unit: 'deliveries/s',
    value: B.value,
    baseline: A.value,
    ratio: round(B.value / A.value, 2),
    cpuMsPerDelivery: { A: serviceMs.A, B: serviceMs.B },
    postgresMsPerDelivery: { A: postgresMs.A, B: postgresMs.B },
    rounds: rounds.map((r) => ({
      A: r.A.value,
      B: r.B.value,
      ratio: round(r.ratio, 2),
      cpuRatio: round(r.cpuRatio, 2),
      postgresRatio: round(r.postgresRatio, 2),
    })),
    target: DISPATCH_AB_TARGET,
    pass: null,
    notes: [
      `A: the run's service; B: a second service on its own database seeded alike, with ${b.text}`,
      `median of ${rounds.length} rounds by ratio; B/A deliveries a second per round: ${ratiosText(rounds, 'ratio')}`,
      `service CPU per delivery (median): A ${serviceMs.A} ms, B ${serviceMs.B} ms (B/A per round: ${ratiosText(rounds, 'cpuRatio')})`,
      `PostgreSQL CPU per delivery (median): A ${postgresMs.A} ms, B ${postgresMs.B} ms (B/A per round: ${ratiosText(rounds, 'postgresRatio')})`,
      `B's peak memory (VmHWM) ${peakMb} MB (A's: the memory figure)`,
      ...balancedNotes(rounds),
    ],
  });
}
