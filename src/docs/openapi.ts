import type { INestApplication } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { DocumentBuilder, getSchemaPath, SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject, OperationObject, PathItemObject, ResponseObject } from '@nestjs/swagger';
import { HAL_CONTENT_TYPE } from '../common/hal/hal';
import { IS_PUBLIC } from '../common/http/public-route';
import { API_CALLBACK_CONTENT, CallbackContent } from '../common/openapi/callbacks';
import { closeSchemas } from '../common/openapi/closed-schemas';
import { BEARER_SCHEME } from '../common/openapi/decorators';
import { addErrorBodyExamples, errorBodyExample, nullableRefsAsOneOf } from '../common/openapi/document';
import { ErrorBodySchema } from '../common/openapi/schemas';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../common/paging/page-query.dto';
import { MAX_OBSERVATIONS_LENGTH, MAX_STRING_LENGTH } from '../common/reference/enums';
import { TOKEN_TTL_MS } from '../config/configuration';
import { serveSwaggerUi } from './swagger-ui';

/** Swagger UI at /docs, the document at /openapi.json: plain Fastify routes, so public and never rate limited. */
export const DOCS_PATH = 'docs';
export const OPENAPI_JSON_PATH = 'openapi.json';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const REQUEST_ID_HEADER = 'X-Request-Id';
const HAL_MEDIA_TYPE = HAL_CONTENT_TYPE.split(';')[0];

const TOKEN_HOURS = TOKEN_TTL_MS / 3_600_000;

const DESCRIPTION = `
HTTP API for partner organisations that manage licences for their clients: authentication, webhook
subscriptions, the history of webhook deliveries, and the licence events delivered to receivers.

**Authentication.** Every operation except \`POST /auth/login\` and \`/health/*\` needs
\`Authorization: Bearer <token>\`, the token coming from \`POST /auth/login\` (valid ${TOKEN_TTL_MS} ms, ${TOKEN_HOURS} hours).
Invalid or expired token: 401. Authenticated but not allowed: 403.

**Wire conventions.** Request bodies are \`application/json\` (at most 1 MB: 413). Every response with a body
is \`application/hal+json;charset=UTF-8\`, errors included, and every response carries \`X-Request-Id\` (your
own value when it is 1..128 characters of \`[A-Za-z0-9._-]\`, else a new UUID). Timestamps are UTC,
\`YYYY-MM-DDTHH:mm:ss.sssZ\`. Strings are at most ${MAX_STRING_LENGTH} characters, \`description\` at most ${MAX_OBSERVATIONS_LENGTH}. Errors share one
body (\`ErrorBody\`); validation failures name each field in \`errors\`.

**Rate limits** (defaults). \`POST /auth/login\`: 10 requests a minute per client IP. Everything else: 100 requests a
minute per token. Over the limit: 429 with \`Retry-After\` (seconds). Health checks and this documentation
are never limited.

**Paging.** Lists answer a page envelope: \`page\` (zero-based, default 0), \`size\` (1..${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}) and,
where available, a repeatable \`sort=field[,asc|desc]\`.

**Webhooks.** When a licence is created (LICENCE_CREATED_SUCCESS) or its creation fails
(LICENCE_CREATED_FAILED), the service POSTs the event to the \`url\` of every active subscription of the tenant
that lists it: see the \`licenceEvent\` callback of \`POST /webhooks/subscriptions\`.
`.trim();

const TAGS: Array<[name: string, description: string]> = [
  ['Authentication', 'Log in and read the current user'],
  [
    'Webhook subscriptions',
    'Receivers of licence events (ROLE_PARTNER on its tenant, administrators on all)',
  ],
  ['Webhook deliveries', 'One record per delivery attempt'],
  ['Webhook event types', 'The event types and the JSON Schema of the body delivered for each'],
  ['Users (administrators)', 'User accounts'],
  ['Licence events (administrators)', 'Publish a licence event to the subscribers of a tenant'],
  ['Health', 'Liveness and readiness probes'],
  ['Metrics', "Prometheus metrics, for an administrator's token or the scraper's METRICS_TOKEN"],
];

/** `Subscriptions_create` for SubscriptionsController.create: readable names for generated clients. */
const operationId = (controllerKey: string, methodKey: string) =>
  `${controllerKey.replace(/Controller$/, '')}_${methodKey}`;

function operations(document: OpenAPIObject): Array<[path: string, operation: OperationObject]> {
  return Object.entries(document.paths).flatMap(([path, item]: [string, PathItemObject]) =>
    HTTP_METHODS.map((method) => item[method])
      .filter((op): op is OperationObject => op !== undefined)
      .map((op): [string, OperationObject] => [path, op]),
  );
}

type ControllerType = new (...args: never[]) => unknown;

/** Every controller class of the app, as Nest scanned the modules. */
function controllers(app: INestApplication): ControllerType[] {
  return [...app.get(ModulesContainer).values()].flatMap((module) =>
    [...module.controllers.values()]
      .map((wrapper) => wrapper.metatype as ControllerType | null)
      .filter((type): type is ControllerType => type !== null),
  );
}

/**
 * The operation ids of the handlers the JWT guard lets through without a token: read from the same
 * @Public() metadata, the same way (handler, then class), so the document cannot drift from the guard.
 */
function publicOperationIds(types: ControllerType[]): Set<string> {
  const reflector = new Reflector();
  const ids = new Set<string>();
  for (const type of types) {
    for (const key of Object.getOwnPropertyNames(type.prototype)) {
      const handler = Object.getOwnPropertyDescriptor(type.prototype, key)?.value;
      if (key === 'constructor' || typeof handler !== 'function') continue;
      if (reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, type])) {
        ids.add(operationId(type.name, key));
      }
    }
  }
  return ids;
}

/** The callbacks' contents (ApiCallbackContent), by name. */
function callbackContents(types: ControllerType[]): Map<string, CallbackContent> {
  const reflector = new Reflector();
  const contents = new Map<string, CallbackContent>();
  for (const type of types) {
    const content = reflector.get<CallbackContent | undefined>(API_CALLBACK_CONTENT, type);
    if (content) contents.set(content.name, content);
  }
  return contents;
}

/** The document's header: title, version, server, bearer scheme and tags. */
function documentConfig(version: string): Omit<OpenAPIObject, 'paths'> {
  const builder = new DocumentBuilder()
    .setTitle('Partner Integration Service')
    .setDescription(DESCRIPTION)
    .setVersion(version)
    // The spec's {base_url}: relative, so paths resolve against the address the document was
    // loaded from, which is what OpenAPI assumes without `servers` (and Swagger UI's "Try it out").
    .addServer('/', 'This service (the address this document is served from)')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: `The \`token\` of POST /auth/login, valid ${TOKEN_TTL_MS} ms (${TOKEN_HOURS} hours)`,
      },
      BEARER_SCHEME,
    )
    .addSecurityRequirements(BEARER_SCHEME);
  for (const [name, description] of TAGS) builder.addTag(name, description);
  return builder.build();
}

/** The request id's header and parameter, shared by every operation (addCommonResponses). */
function addRequestIdComponents(document: OpenAPIObject): void {
  document.components ??= {};
  document.components.headers = {
    ...document.components.headers,
    [REQUEST_ID_HEADER]: {
      description: "Unique request identifier: the caller's own when valid, else a new UUID",
      schema: { type: 'string', example: '3f2b8c1e-6d4a-4f0e-9a57-0c2d9e1b7a44' },
    },
  };
  document.components.parameters = {
    ...document.components.parameters,
    [REQUEST_ID_HEADER]: {
      in: 'header',
      name: REQUEST_ID_HEADER,
      required: false,
      description: 'Your request identifier, echoed in the response; a new UUID when absent or invalid',
      schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
    },
  };
}

/**
 * Public operations (login, health): no token. Everything else inherits the global bearer
 * requirement, as does a public one that names it (its own guard checks the token: GET /metrics).
 */
function setSecurity(operation: OperationObject, publicIds: Set<string>): void {
  if (!operation.operationId || !publicIds.has(operation.operationId)) return;
  if (operation.security?.length) delete operation.security;
  else operation.security = [];
}

/** The answers every operation may give: 500, 431, the error bodies' examples, the request id header. */
function addCommonResponses(document: OpenAPIObject, path: string, operation: OperationObject): void {
  operation.parameters = [
    ...(operation.parameters ?? []),
    { $ref: `#/components/parameters/${REQUEST_ID_HEADER}` },
  ];
  const responses = operation.responses as Record<string, ResponseObject>;
  responses['500'] ??= {
    description: 'Internal server error (never a stack trace or SQL)',
    content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorBodySchema) } } },
  };
  // Any request, before a route runs: Node's HTTP parser refuses headers over its 16 KB limit
  // with the same error body, whose path it does not know (app.factory, clientError).
  responses['431'] ??= {
    description: 'Request headers larger than 16 KB (refused before the route is known)',
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(ErrorBodySchema) },
        example: { ...errorBodyExample(431, ''), message: 'The request headers are too large' },
      },
    },
  };
  addErrorBodyExamples(document, path, operation, getSchemaPath(ErrorBodySchema));
  for (const response of Object.values(responses)) {
    // What the wire carries (contract section 4): every JSON body is application/hal+json.
    if (response.content?.['application/json']) {
      const { 'application/json': json, ...others } = response.content;
      response.content = { [HAL_MEDIA_TYPE]: json, ...others };
    }
    response.headers = {
      ...response.headers,
      [REQUEST_ID_HEADER]: { $ref: `#/components/headers/${REQUEST_ID_HEADER}` },
    };
  }
}

/** ApiCallback declared each callback's URL; ApiCallbackContent, in the feature that sends it, says what goes there. */
function fillCallbacks(
  operation: OperationObject,
  contents: Map<string, CallbackContent>,
  version: string,
): void {
  const callbacks = operation.callbacks as Record<string, Record<string, PathItemObject>> | undefined;
  for (const [name, callback] of Object.entries(callbacks ?? {})) {
    const content = contents.get(name);
    if (!content) throw new Error(`OpenAPI: callback ${name} of ${operation.operationId} has no content`);
    for (const expression of Object.keys(callback)) callback[expression] = content.pathItem(version);
  }
}

/** Builds the OpenAPI 3.0 document from the controllers' and DTOs' decorators, then completes it. */
export function createOpenApiDocument(app: INestApplication, version: string): OpenAPIObject {
  const document = SwaggerModule.createDocument(app, documentConfig(version), {
    operationIdFactory: operationId,
    extraModels: [ErrorBodySchema],
    autoTagControllers: false,
  });
  // No public licence: the API is offered to partners under their integration agreement.
  document.info.license = { name: 'Proprietary' };
  addRequestIdComponents(document);
  const types = controllers(app);
  const publicIds = publicOperationIds(types);
  const contents = callbackContents(types);
  for (const [path, operation] of operations(document)) {
    setSecurity(operation, publicIds);
    addCommonResponses(document, path, operation);
    fillCallbacks(operation, contents, version);
  }
  nullableRefsAsOneOf(document);
  closeSchemas(document);
  return document;
}

/**
 * GET /openapi.json (the document) and GET /docs (Swagger UI, which loads it), as plain Fastify
 * routes: Nest's guards never see them, so they are public and never rate limited. Called once
 * the app is created, before it listens.
 */
export function setupOpenApi(app: INestApplication, version: string): OpenAPIObject {
  const document = createOpenApiDocument(app, version);
  // The document only (`ui: false`): the UI comes from serveSwaggerUi (see there why).
  SwaggerModule.setup(DOCS_PATH, app, document, {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
    ui: false,
  });
  serveSwaggerUi(
    app.getHttpAdapter().getInstance() as FastifyInstance,
    `/${DOCS_PATH}`,
    `/${OPENAPI_JSON_PATH}`,
    'Partner Integration Service API',
  );
  return document;
}
