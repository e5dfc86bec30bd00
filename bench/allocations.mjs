/* global process */
// Summarises the allocation profiles lib/allocation-sampler.cjs wrote (one per thread):
//   ALLOCATION_PROFILE_DIR=/tmp/alloc npm run bench -- --only dispatch --rounds 2 \
//     "--node-args=--require ./bench/lib/allocation-sampler.cjs"
//   node bench/allocations.mjs /tmp/alloc [--top 25]
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatAllocationProfile, summariseAllocationProfile } from './lib/profile.mjs';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '25' } },
  allowPositionals: true,
});
const dir = positionals[0] ?? process.env.ALLOCATION_PROFILE_DIR;
if (!dir) throw new Error('usage: node bench/allocations.mjs <dir of .heapprofile files> [--top N]');
for (const name of readdirSync(dir)
  .filter((f) => f.endsWith('.heapprofile'))
  .sort())
  process.stdout.write(
    `${formatAllocationProfile(summariseAllocationProfile(join(dir, name), Number(values.top)))}\n\n`,
  );
