import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';

/**
 * Browser tests drive Debian's Chromium (`apt-get install -y chromium`) through playwright-core:
 * Playwright's own browser download does not work on these machines. CHROMIUM_PATH points at
 * another build.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export const HOW_TO_GET_CHROMIUM =
  `no Chromium at ${CHROMIUM_PATH}: install Debian's (sudo apt-get install -y chromium) ` +
  'or set CHROMIUM_PATH to a Chromium binary';

/**
 * How a browser spec runs here: 'run'; 'skip' on a developer's machine without Chromium (one line
 * on stderr says how to get it: never a silent pass); 'fail' under CI=true, where the tests are
 * required (.ci/run installs Chromium first).
 */
export function browserMode(): 'run' | 'skip' | 'fail' {
  if (chromiumAvailable()) return 'run';
  return process.env.CI === 'true' ? 'fail' : 'skip';
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Without the background-networking flags Chromium keeps calling Google's hosts, which this
    // closed network refuses.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/**
 * Builds the portal as `npm run build` does, into a folder of its own (dist/portal is left alone):
 * its API client first, generated from the service's OpenAPI document.
 */
export async function buildPortal(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'pis-portal-build-'));
  const root = join(__dirname, '..', '..');
  execFileSync('npm', ['run', '-s', 'build:portal-api'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      'portal',
      '--logLevel',
      'error',
      '--outDir',
      outDir,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return outDir;
}
