// The results table (stdout) and helpers for figures.

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function latencySummary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50), 1),
    p95: round(percentile(sorted, 95), 1),
    p99: round(percentile(sorted, 99), 1),
    max: round(sorted[sorted.length - 1] ?? null, 1),
  };
}

export function round(value, digits = 0) {
  if (value === null || value === undefined || Number.isNaN(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

const fmtNumber = (value, digits = 0) =>
  value === null || value === undefined
    ? '-'
    : Number(value).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function fmtValue(value, unit) {
  if (value === null || value === undefined) return '-';
  const digits = unit === 'ms' || unit === 'MB' ? (value < 100 ? 1 : 0) : 0;
  return `${fmtNumber(value, digits)} ${unit}`;
}

function fmtLatency(figure) {
  if (figure.p50 === undefined && figure.p99 === undefined) return '';
  return `${fmtNumber(figure.p50, 1)} / ${fmtNumber(figure.p99, 1)}`;
}

function fmtBaseline(name, b, unit) {
  if (!b) return '';
  if (b.value === null || b.value === undefined) return `${name}: ${b.reason ?? 'n/a'}`;
  return `${name} ${fmtValue(b.value, b.unit ?? unit)}`;
}

function pad(text, width) {
  const s = String(text);
  return s.length >= width ? s : s + ' '.repeat(width - s.length);
}

/** One line per figure; the `baselines` object's first entry is the ratio's denominator. */
/** A stream's publish-to-receipt latency (p50 the value) against the same stream without the backlog. */
export function latencyBesideBaseline({ p50, p99 }, baseline) {
  return {
    unit: 'ms',
    value: p50,
    p50,
    p99,
    baseline: baseline.p50,
    ratio: p50 && baseline.p50 ? round(p50 / baseline.p50, 2) : null,
    baselines: { 'no backlog': { value: baseline.p50, unit: 'ms', p50: baseline.p50, p99: baseline.p99 } },
  };
}

export function formatTable(figures) {
  const header = [
    'Figure',
    'Value',
    'p50 / p99 ms',
    'Baseline',
    'Context baseline',
    'Ratio',
    'Target',
    'Result',
  ];
  const rows = figures.map((f) => {
    if (f.available === false)
      return [f.figure, `not available: ${f.reason}`, '', '', '', '', f.target ?? '', 'n/a'];
    const names = Object.keys(f.baselines ?? {});
    return [
      f.figure,
      fmtValue(f.value, f.unit),
      fmtLatency(f),
      fmtBaseline(names[0], f.baselines?.[names[0]], f.unit),
      names
        .slice(1)
        .map((n) => fmtBaseline(n, f.baselines[n], f.unit))
        .join('; '),
      f.ratio === null || f.ratio === undefined ? '-' : fmtNumber(f.ratio, 2),
      f.target ?? '',
      f.pass === undefined || f.pass === null ? '-' : f.pass ? 'pass' : 'MISS',
    ];
  });
  // A "not available" reason may be long: it does not set the column width.
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.filter((r) => !(i === 1 && r[7] === 'n/a')).map((r) => String(r[i]).length)),
  );
  const line = (cells) =>
    cells
      .map((c, i) => pad(c, widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * CPU per measured run: share of one core per process group, and CPU milliseconds per unit of work
 * (request or delivery) for the process under test (service or baseline) and PostgreSQL.
 */
export function formatCpuTable(runs) {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.cpu ?? {})))];
  const header = [
    'Run',
    ...names,
    'units',
    'CPU ms/unit: app',
    'postgres',
    'app main thread: on CPU / waiting',
  ];
  const rows = runs.map((r) => {
    const app = r.msPerUnit?.[r.app];
    const main = r.appMainThread;
    return [
      r.name,
      ...names.map((n) => (r.cpu?.[n] === undefined ? '' : `${r.cpu[n]}%`)),
      r.units ?? '',
      app === undefined ? '' : app.toFixed(3),
      r.msPerUnit?.postgres ? r.msPerUnit.postgres.toFixed(3) : '',
      main ? `${main.onCpu}% / ${main.waiting}%` : '',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => pad(c, widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
