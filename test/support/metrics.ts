import parsePrometheusTextFormat, { PrometheusFamily, PrometheusSample } from 'parse-prometheus-text-format';
import type { TestApp } from './test-app';

export type { PrometheusFamily, PrometheusSample };

export interface Scrape {
  families: PrometheusFamily[];
  text: string;
}

/** GET /metrics with this Authorization header, parsed by a Prometheus text-format parser. */
export async function scrape(t: TestApp, authorization: string): Promise<Scrape> {
  const res = await t.http().get('/metrics').set('authorization', authorization).expect(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return { families: parsePrometheusTextFormat(res.text), text: res.text };
}

/** The samples of one family whose labels include `labels`. */
export function samples(
  families: PrometheusFamily[],
  name: string,
  labels: Record<string, string> = {},
): PrometheusSample[] {
  const family = families.find((f) => f.name === name);
  if (!family) throw new Error(`no metric family ${name}`);
  return family.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

/** The value of the one sample (a counter or gauge) whose labels include `labels`; 0 when none. */
export function valueOf(
  families: PrometheusFamily[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = samples(families, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found.length === 0 ? 0 : Number(found[0].value);
}

/**
 * The observation count of a histogram's series with exactly these labels, read from its `_count`
 * line: the parser keeps one sample per histogram family and drops the labels of `_count` lines.
 */
export function histogramCount(text: string, name: string, labels: Record<string, string>): number {
  const labelText = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const line = text.split('\n').find((l) => l.startsWith(`${name}_count{${labelText}} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}
