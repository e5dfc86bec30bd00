/* global process */
// Figures api-read, api-me and api-write: one request each, under load, against the same-work and
// bare baselines; with many tokens, diagnostic rows of the same load over as many rate-limit keys.
import { TARGETS } from '../lib/config.mjs';
import { measureApi, mintTokens, shapeOf, startApiBaseline } from '../lib/measure.mjs';
import { stopChild } from '../lib/processes.mjs';
import { round } from '../lib/report.mjs';
import { args, ctx, EVENT_TYPE, mode, size, unavailable, want } from '../lib/run-context.mjs';
import { call } from '../lib/service.mjs';

/** api-read's request: a page of the subscriptions of bench-main (1,000 of them). */
export const apiReadSpec = (token) => ({
  figure: 'api-read',
  method: 'GET',
  path: '/webhooks/subscriptions?size=20',
  token,
});

const targetOf = (figure) =>
  figure === 'api-write' ? undefined : `≥${TARGETS.apiRatio}× same-work, p99 ≤${TARGETS.apiP99Ms} ms`;

function wantedSpecs(tokens) {
  return [
    apiReadSpec(tokens.reader),
    { figure: 'api-me', method: 'GET', path: '/auth/me', token: tokens.me },
    {
      figure: 'api-write',
      method: 'POST',
      path: '/webhooks/subscriptions',
      token: tokens.writer,
      body: {
        name: 'Bench write',
        url: 'https://partner.example.com/hooks/licences',
        events: [EVENT_TYPE],
      },
    },
  ].filter((s) => want(s.figure));
}

/** The specs the service answers 200 (with its answer as `sample`), and those answers for `bare`. */
async function availableSpecs(specs) {
  const available = [];
  const bareBodies = {};
  for (const spec of specs) {
    const res = await call(ctx.service.base, spec.method, spec.path, { token: spec.token, body: spec.body });
    if (res.status !== 200) {
      unavailable(
        spec.figure,
        `${spec.method} ${spec.path} answered ${res.status}${res.body?.message ? ` (${res.body.message})` : ''}`,
        targetOf(spec.figure),
      );
      continue;
    }
    spec.sample = res.body;
    bareBodies[`${spec.method} ${spec.path}`] = { status: 200, body: res.text };
    available.push(spec);
  }
  return { available, bareBodies };
}

async function startBaselines(jwtSecret, bareBodies) {
  return {
    'same-work': await startApiBaseline('same-work', {
      DATABASE_URL: ctx.databaseUrl,
      JWT_SECRET: jwtSecret,
      USER_CACHE_TTL_MS: process.env.USER_CACHE_TTL_MS ?? '2000',
      DB_POOL_SIZE: process.env.DB_POOL_SIZE ?? '10',
    }),
    bare: await startApiBaseline('bare', { BARE_BODIES: JSON.stringify(bareBodies) }),
  };
}

/** Whether the same-work baseline answers as the service does: a note when it does not. */
async function checkSameWork(baselines, spec, notes) {
  const check = await call(baselines['same-work'].base, spec.method, spec.path, {
    token: spec.token,
    body: spec.body,
  });
  if (check.status !== 200)
    notes.push(`same-work baseline answered ${check.status}: ${check.text.slice(0, 200)}`);
  else if (JSON.stringify(shapeOf(check.body)) !== JSON.stringify(shapeOf(spec.sample)))
    notes.push('same-work baseline body shape differs from the service');
}

async function measureSpec(spec, baselines) {
  ctx.phase = spec.figure;
  const notes = [];
  if (baselines) await checkSameWork(baselines, spec, notes);
  const service = await measureApi(`${spec.figure} service`, ctx.service.base, spec, undefined);
  const measured = {};
  if (baselines) {
    for (const [name, b] of Object.entries(baselines))
      measured[name] = await measureApi(`${spec.figure} ${name}`, b.base, spec, b.child.pid);
  }
  if (service.non2xx || service.errors)
    notes.push(`service: ${service.non2xx} non-2xx, ${service.errors} errors`);
  const ratio = measured['same-work'] ? round(service.value / measured['same-work'].value, 2) : null;
  const target = targetOf(spec.figure);
  const pass =
    target && ratio !== null ? ratio >= TARGETS.apiRatio && service.p99 <= TARGETS.apiP99Ms : undefined;
  ctx.figures.push({
    figure: spec.figure,
    request: `${spec.method} ${spec.path}`,
    unit: 'req/s',
    value: service.value,
    p50: service.p50,
    p99: service.p99,
    baseline: measured['same-work']?.value ?? null,
    ratio,
    ratioBare: measured.bare ? round(service.value / measured.bare.value, 2) : null,
    baselines: measured,
    service,
    connections: size.connections,
    durationS: size.durationS,
    target,
    pass,
    notes,
  });
}

/**
 * Diagnostic rows: the same load spread over many tokens of the same user. The in-memory rate
 * limiter keeps one timestamp per request per token for a minute and filters that list on every
 * request, so one token at thousands of requests a second (possible only with the limit raised,
 * as here) costs it more per request than many tokens at a realistic rate each.
 */
async function measureManyTokens(spec, jwtSecret, tokenCount) {
  const main = ctx.figures.find((f) => f.figure === spec.figure);
  ctx.phase = `${spec.figure} ×${tokenCount} tokens`;
  const many = { ...spec, tokens: mintTokens(spec.token, jwtSecret, tokenCount) };
  const service = await measureApi(`${spec.figure} ×${tokenCount} tokens service`, ctx.service.base, many);
  ctx.figures.push({
    figure: `${spec.figure} ×${tokenCount} tokens`,
    request: `${spec.method} ${spec.path}`,
    unit: 'req/s',
    value: service.value,
    p50: service.p50,
    p99: service.p99,
    baseline: main?.baseline ?? null,
    ratio: main?.baseline ? round(service.value / main.baseline, 2) : null,
    baselines: main?.baselines ? { 'same-work': main.baselines['same-work'] } : undefined,
    service,
    tokens: tokenCount,
    target: 'diagnostic',
    notes: [
      `the load of ${spec.figure} spread over ${tokenCount} tokens of the same user (rate-limiter keys); ` +
        'baseline: the same-work figure of the row above',
    ],
  });
}

export async function apiFigures(tokens, jwtSecret) {
  const specs = wantedSpecs(tokens);
  if (specs.length === 0) return;
  const { available, bareBodies } = await availableSpecs(specs);
  if (available.length === 0) return;

  const baselines = args.profile ? undefined : await startBaselines(jwtSecret, bareBodies);
  // --profile --tokens N: profile the many-token load instead (the rate limiter's per-token cost aside).
  if (args.profile && Number(args.tokens) > 1)
    for (const spec of available) spec.tokens = mintTokens(spec.token, jwtSecret, Number(args.tokens));
  for (const spec of available) await measureSpec(spec, baselines);
  if (baselines) for (const b of Object.values(baselines)) await stopChild(b.child);

  const tokenCount = Number(args.tokens ?? (mode === 'full' ? 1000 : 0));
  if (tokenCount > 1 && !args.profile) {
    for (const spec of available.filter((s) => s.figure !== 'api-write'))
      await measureManyTokens(spec, jwtSecret, tokenCount);
  }
}
