import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * Swagger UI at GET /docs, loading the document from GET /openapi.json.
 *
 * SwaggerModule's own UI serving registers @fastify/static, which requires an ESM-only package
 * (content-disposition 3): Node ≥ 20.19 loads it, Jest's CommonJS runtime cannot, so every e2e
 * test booting the app would fail. The UI needs two files of swagger-ui-dist (the copy
 * @nestjs/swagger depends on) and two small generated ones, served here as plain Fastify routes:
 * like SwaggerModule's, they bypass Nest's guards, so they are public and never rate limited.
 */

/** swagger-ui-dist as @nestjs/swagger resolves it. */
const SWAGGER_UI_DIST = dirname(
  createRequire(require.resolve('@nestjs/swagger')).resolve('swagger-ui-dist/package.json'),
);

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** The page's one inline style, allowed by its hash (DOCS_CSP). */
const PAGE_STYLE = 'body { margin: 0; background: #fafafa; }';

/**
 * What Swagger UI loads, and nothing more: its script and stylesheet from here, the document and
 * "Try it out" calls by fetch to this origin (the document's server is "/"), the stylesheet's icons
 * as data: URIs, the page's inline style by its hash; never framed. Set on every /docs response by
 * applySecurityHeaders (app.factory.ts).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * `docsPath` and `documentPath` are absolute ("/docs", "/openapi.json"); the page refers to its
 * files and to the document relatively, so it also works behind a proxy that adds a path prefix.
 */
export function serveSwaggerUi(
  fastify: FastifyInstance,
  docsPath: string,
  documentPath: string,
  title: string,
): void {
  const base = docsPath.split('/').pop()!;
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>${escapeHtml(title)}</title>
  <link rel="stylesheet" type="text/css" href="${base}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${base}/favicon-16x16.png" sizes="16x16">
  <style>${PAGE_STYLE}</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${base}/swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="${base}/swagger-ui-init.js" charset="UTF-8"></script>
</body>
</html>
`;
  // Relative to the page (docsPath), like every URL above.
  const documentUrl = documentPath.replace(/^\//, '');
  const init = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(documentUrl)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
};
`;

  fastify.get(docsPath, (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
  fastify.get(`${docsPath}/swagger-ui-init.js`, (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').send(init),
  );
  const cache = new Map<string, Promise<Buffer>>();
  for (const [file, type] of Object.entries(ASSETS)) {
    fastify.get(`${docsPath}/${file}`, async (_request, reply) => {
      let content = cache.get(file);
      if (!content) {
        content = readFile(join(SWAGGER_UI_DIST, file));
        cache.set(file, content);
      }
      return reply
        .type(type)
        .header('cache-control', 'public, max-age=3600')
        .send(await content);
    });
  }
}
