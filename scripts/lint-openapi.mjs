/* global process, console */
// Lints an OpenAPI document with @redocly/cli and redocly.yaml (recommended rules): prints each
// problem, and exits 1 on any error or warning (redocly itself fails on errors only).
//   node scripts/lint-openapi.mjs FILE          (npm run lint:openapi writes FILE first)
// Redocly never phones out from here: telemetry off, no update check.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');
const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/lint-openapi.mjs FILE');
  process.exit(2);
}

const { stdout } = await promisify(execFile)(
  process.execPath,
  [cli, 'lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json', '--max-problems', '10000'],
  {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  },
).catch((error) => ({ stdout: error.stdout ?? '' })); // exit 1 when it found an error
let report;
try {
  report = JSON.parse(stdout);
} catch {
  console.error(`lint-openapi: redocly answered no report:\n${stdout}`);
  process.exit(2);
}
for (const problem of report.problems) {
  const where = problem.location.map((l) => l.pointer).join(' ');
  console.log(`${problem.severity}\t${problem.ruleId}\t${where}\t${problem.message}`);
}
const { errors, warnings } = report.totals;
console.log(`redocly ${report.version} lint ${file}: ${errors} errors, ${warnings} warnings`);
process.exit(errors + warnings === 0 ? 0 : 1);
