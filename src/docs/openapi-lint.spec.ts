import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument } from './write-openapi';

type Json = any;

/** scripts/lint-openapi.mjs (what `npm run lint:openapi` runs): redocly, recommended rules. */
const LINT = join(__dirname, '../../scripts/lint-openapi.mjs');

async function lint(document: OpenAPIObject): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'pis-openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document, null, 2));
    return await promisify(execFile)(process.execPath, [LINT, file]).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? -1,
        output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The problem lines of the lint's output (everything but its closing count). */
const problems = (output: string) => output.split('\n').filter((line) => /^(error|warn)\t/.test(line));

describe('OpenAPI document: redocly lint, recommended rules (issue 17)', () => {
  let document: OpenAPIObject;

  beforeAll(async () => {
    // The document GET /openapi.json serves (the openapi e2e spec checks they are equal).
    document = await buildOpenApiDocument();
  });

  it('has no error and no warning: every example valid against its own schema', async () => {
    const { code, output } = await lint(document);
    expect(problems(output)).toEqual([]);
    expect(output).toMatch(/: 0 errors, 0 warnings\n$/);
    expect(code).toBe(0);
  });

  it('fails on a warning as on an error: an invalid example, no servers', async () => {
    const broken: Json = structuredClone(document);
    const callback = broken.paths['/webhooks/subscriptions'].post.callbacks.licenceEvent;
    const body = callback['{$request.body#/url}'].post.requestBody.content['application/json'];
    body.examples.failed.value.licence = 'not a licence';
    const { code, output } = await lint(broken);
    expect(code).toBe(1);
    // Only there (redocly may say it more than once: each alternative of the oneOf refuses it).
    const found = problems(output);
    expect(found.length).toBeGreaterThan(0);
    for (const line of found) {
      expect(line).toMatch(/^warn\tno-invalid-media-type-examples\t.*examples\/failed\/value\/licence\t/);
    }

    delete broken.servers;
    expect(problems((await lint(broken)).output)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^error\tno-empty-servers\t/)]),
    );
  });

  it('admits the null the published spec gives: licence on failure events, error on success ones', () => {
    const payload: Json = document.components!.schemas!.LicenceEventPayload;
    for (const [field, ref] of [
      ['licence', 'Licence'],
      ['error', 'LicenceError'],
    ]) {
      expect(payload.properties[field].oneOf).toEqual([
        { $ref: `#/components/schemas/${ref}` },
        expect.objectContaining({ nullable: true, enum: [null] }),
      ]);
    }
  });
});
