/* global require, process, __dirname, setInterval */
/* eslint-disable @typescript-eslint/no-require-imports -- a preload for node --require: CommonJS */
// A diagnostic preload (node --require): V8's sampling heap profiler in every thread of the process
// it is loaded into (the service's main thread and, since a worker runs the process's preloads, its
// delivery thread), counting objects the collector has already freed too: where the allocations
// come from, which is what sets how often the young generation is collected. Each thread rewrites
// ALLOCATION_PROFILE_DIR/<pid>-<main|thread N>.heapprofile every 10 s and at exit. Summarise with
// `node bench/allocations.mjs <dir>`. The sampling (one sample per 8 KiB allocated on average) costs
// the service some CPU, and the profile's own writes show in it (node:inspector, writeFileSync):
// measure throughput without it.
const { mkdirSync, writeFileSync } = require('node:fs');
const { Session } = require('node:inspector');
const { join } = require('node:path');
const { isMainThread, threadId } = require('node:worker_threads');

const dir = process.env.ALLOCATION_PROFILE_DIR ?? join(__dirname, '..', 'allocation-profiles');
mkdirSync(dir, { recursive: true });
const file = join(dir, `${process.pid}-${isMainThread ? 'main' : `thread-${threadId}`}.heapprofile`);
const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: 8192,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
// A session on the thread's own inspector answers synchronously.
const write = () =>
  session.post('HeapProfiler.getSamplingProfile', (error, result) => {
    if (!error) writeFileSync(file, JSON.stringify(result.profile));
  });
setInterval(write, 10_000).unref();
process.on('exit', write);
