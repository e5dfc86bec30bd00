import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from '../app.module';
import { loadConfig } from '../config/configuration';
import { createOpenApiDocument } from './openapi';

/**
 * The document GET /openapi.json serves, built without a database: the same AppModule and the same
 * createOpenApiDocument, with Nest in preview mode, which scans the modules and controllers but
 * instantiates no provider (so nothing connects to PostgreSQL or Redis, nothing starts). The
 * openapi e2e spec checks that the served document equals this one.
 */
export async function buildOpenApiDocument(): Promise<OpenAPIObject> {
  // Throwaway secrets so loadConfig neither needs the caller's nor stores generated ones; no
  // variable changes what the document says.
  const { config } = loadConfig({
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(48).toString('base64url'),
    SECRETS_KEY: randomBytes(32).toString('base64'),
  });
  const app = await NestFactory.create(
    AppModule.forRoot(config, 'postgres://unused@127.0.0.1:1/unused'),
    new FastifyAdapter(),
    { preview: true, logger: false, abortOnError: false },
  );
  try {
    return createOpenApiDocument(app, config.app.version);
  } finally {
    await app.close();
  }
}

/** `node dist/src/docs/write-openapi.js FILE`: writes the document to FILE (`npm run lint:openapi`). */
async function main(file: string | undefined): Promise<void> {
  if (!file) throw new Error('usage: node dist/src/docs/write-openapi.js FILE');
  await writeFile(file, `${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`);
}

if (require.main === module) {
  main(process.argv[2]).catch((error: unknown) => {
    process.stderr.write(`write-openapi: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
