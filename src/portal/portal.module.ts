import { Inject, Injectable, Module, NotFoundException, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../common/errors/all-exceptions.filter';
import { errorBody } from '../common/errors/error-body';
import { defaultPortalDir, PortalFile, PortalFiles } from './portal-files';

/** Where the built portal is (tests point it at a folder of their own). */
export const PORTAL_DIR = Symbol('PORTAL_DIR');

export const PORTAL_PATH = '/portal';

/**
 * The app's own origin only: no inline script or style, no framing, no plugins; the API it calls
 * is on the same origin (contract section 10). Set on every /portal response, its errors included,
 * by applySecurityHeaders (app.factory.ts).
 */
export const PORTAL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const INDEX_CACHE = 'no-cache';
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * GET /portal and everything below it, as plain Fastify routes (like /docs): public and never rate
 * limited (contract section 8), outside Nest's guards. Files under assets/ carry a content hash in
 * their names and are cached for a year; any other path is a page of the app (a deep link) and gets
 * index.html, which is revalidated on every load so a new build is picked up at once.
 */
@Injectable()
export class PortalRoutes implements OnModuleInit {
  private readonly files: PortalFiles;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(PORTAL_DIR) dir: string,
  ) {
    this.files = new PortalFiles(dir);
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.get(PORTAL_PATH, (request, reply) => this.page(request, reply));
    fastify.get(`${PORTAL_PATH}/*`, (request, reply) => {
      const rest = (request.params as { '*': string })['*'];
      return rest.startsWith('assets/')
        ? this.asset(request, reply, rest.slice(7))
        : this.page(request, reply);
    });
  }

  private async page(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const file = await this.files.index();
    if (!file) {
      // A clear answer, not a crash: the service runs without its portal until one is built.
      request.log.warn(`no partner portal build in ${this.files.dir}`);
      const message = 'The partner portal is not built: run npm run build';
      void reply.code(503).send(errorBody(503, message, request.url, request.id));
      return;
    }
    this.send(reply, file, INDEX_CACHE);
  }

  private async asset(request: FastifyRequest, reply: FastifyReply, name: string): Promise<void> {
    const file = await this.files.asset(name);
    if (!file) return sendError(reply, request, new NotFoundException('No such portal file'), request.log);
    this.send(reply, file, ASSET_CACHE);
  }

  private send(reply: FastifyReply, file: PortalFile, cacheControl: string): void {
    void reply
      .header('Content-Type', file.type)
      .header('Cache-Control', cacheControl)
      .header('Referrer-Policy', 'no-referrer')
      .send(file.body);
  }
}

/** Serves the partner portal's single-page app at /portal (contract section 10). */
@Module({ providers: [{ provide: PORTAL_DIR, useFactory: defaultPortalDir }, PortalRoutes] })
export class PortalModule {}
