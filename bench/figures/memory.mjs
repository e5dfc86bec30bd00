// Figure memory (peak RSS): the run's service process' high-water mark over the whole run.
import { TARGETS } from '../lib/config.mjs';
import { memoryOf } from '../lib/cpu.mjs';
import { round } from '../lib/report.mjs';
import { ctx } from '../lib/run-context.mjs';

export function memoryFigure() {
  const m = memoryOf(ctx.memory.pid);
  const peak = Math.max(ctx.memory.peakHwmMb, m?.hwmMb ?? 0);
  ctx.figures.push({
    figure: 'memory (peak RSS)',
    unit: 'MB',
    value: round(peak, 1),
    baseline: null,
    ratio: null,
    peakSampledRssMb: round(ctx.memory.peakRssMb, 1),
    rssWhenReadyMb: ctx.memory.readyMb,
    rssAfterSetUpMb: ctx.memory.afterSeedMb,
    rssByPhaseMb: ctx.memory.phases,
    target: `≤${TARGETS.memoryMb} MB`,
    pass: peak <= TARGETS.memoryMb,
    notes: [
      "VmHWM of the run's service process (node, tracing off); the embedded PostgreSQL is a separate process",
      `RSS ${ctx.memory.readyMb} MB when ready; highest RSS sampled in each phase: ` +
        Object.entries(ctx.memory.phases)
          .map(([phase, mb]) => `${phase} ${Math.round(mb)}`)
          .join(', ') +
        ' MB',
    ],
  });
}
