import type { INestApplication } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { DocumentBuilder, getSchemaPath, SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject, OperationObject, PathItemObject, ResponseObject } from '@nestjs/swagger';
import { IS_PUBLIC } from '../auth/decorators/public.decorator';
import { HAL_CONTENT_TYPE } from '../common/hal/hal';
import {
  FAILED_EVENT_EXAMPLE,
  LICENCE_EVENT_CALLBACK,
  LicenceEventPayloadSchema,
  SUCCESS_EVENT_EXAMPLE,
} from './events';
import { ErrorBodySchema } from './schemas';
import { serveSwaggerUi } from './swagger-ui';

/** Swagger UI at /docs, the document at /openapi.json: plain Fastify routes, so public and never rate limited. */
export const DOCS_PATH = 'docs';
export const OPENAPI_JSON_PATH = 'openapi.json';
export const BEARER_SCHEME = 'bearer';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const REQUEST_ID_HEADER = 'X-Request-Id';
const HAL_MEDIA_TYPE = HAL_CONTENT_TYPE.split(';')[0];

const DESCRIPTION = `
HTTP API for partner organisations that manage licences for their clients: authentication, webhook
subscriptions, the history of webhook deliveries, and the licence events delivered to receivers.

**Authentication.** Every operation except \`POST /auth/login\` and \`/health/*\` needs
\`Authorization: Bearer <token>\`, the token coming from \`POST /auth/login\` (valid 14400000 ms, 4 hours).
Invalid or expired token: 401. Authenticated but not allowed: 403.

**Wire conventions.** Request bodies are \`application/json\` (at most 1 MB: 413). Every response with a body
is \`application/hal+json;charset=UTF-8\`, errors included, and every response carries \`X-Request-Id\` (your
own value when it is 1..128 characters of \`[A-Za-z0-9._-]\`, else a new UUID). Timestamps are UTC,
\`YYYY-MM-DDTHH:mm:ss.sssZ\`. Strings are at most 255 characters, \`description\` at most 1000. Errors share one
body (\`ErrorBody\`); validation failures name each field in \`errors\`.

**Rate limits** (defaults). \`POST /auth/login\`: 10 requests a minute per client IP. Everything else: 100 requests a
minute per token. Over the limit: 429 with \`Retry-After\` (seconds). Health checks and this documentation
are never limited.

**Paging.** Lists answer a page envelope: \`page\` (zero-based, default 0), \`size\` (1..100, default 20) and,
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
  ['Users (administrators)', 'User accounts'],
  ['Licence events (administrators)', 'Publish a licence event to the subscribers of a tenant'],
  ['Health', 'Liveness and readiness probes'],
  ['Metrics', "Prometheus metrics, for an administrator's token or the scraper's METRICS_TOKEN"],
];

const DELIVERY_RULES = `
The service POSTs each licence event to the subscription's \`url\`:

- \`Content-Type: application/json\`, \`User-Agent: partner-integration-service/<version>\`, plus the
  subscription's custom header (\`headerName: headerValue\`) when it has one: check it.
- Answer 2xx within 30 seconds: the delivery is SUCCESS. Anything else (non-2xx, a redirect, which is not
  followed, a time-out, a refused connection or TLS failure) is FAILED, recorded in the delivery history
  with \`httpStatusCode\` and \`errorMessage\`, and **never resent**. Answer first, process afterwards.
- Deliveries are asynchronous, unordered and at least once: the same event may arrive twice, always with the
  same \`timestamp\`. Drop duplicates by \`eventType\` + \`timestamp\` + \`licence.code\` and acknowledge them with 2xx.
- Verify the payload structure, check \`tenant\` against the tenants you expect and \`timestamp\` against
  replays (e.g. a 5-minute window). Requests come from the fixed addresses communicated during integration.
`.trim();

/** `Subscriptions_create` for SubscriptionsController.create: readable names for generated clients. */
const operationId = (controllerKey: string, methodKey: string) =>
  `${controllerKey.replace(/Controller$/, '')}_${methodKey}`;

function operations(document: OpenAPIObject): OperationObject[] {
  return Object.values(document.paths).flatMap((item: PathItemObject) =>
    HTTP_METHODS.map((method) => item[method]).filter((op): op is OperationObject => op !== undefined),
  );
}

/**
 * The operation ids of the handlers the JWT guard lets through without a token: read from the same
 * @Public() metadata, the same way (handler, then class), so the document cannot drift from the guard.
 */
function publicOperationIds(app: INestApplication): Set<string> {
  const reflector = new Reflector();
  const ids = new Set<string>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!type) continue;
      for (const key of Object.getOwnPropertyNames(type.prototype)) {
        const handler = Object.getOwnPropertyDescriptor(type.prototype, key)?.value;
        if (key === 'constructor' || typeof handler !== 'function') continue;
        if (reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, type])) {
          ids.add(operationId(type.name, key));
        }
      }
    }
  }
  return ids;
}

/** The full `licenceEvent` callback: what receivers get and how to answer (spec, Events). */
function licenceEventCallback(version: string): PathItemObject {
  return {
    post: {
      summary: 'Licence event delivered to the subscriber',
      description: DELIVERY_RULES,
      security: [],
      parameters: [
        {
          in: 'header',
          name: 'User-Agent',
          required: true,
          description: 'Identifies the service',
          schema: { type: 'string', example: `partner-integration-service/${version}` },
        },
      ],
      requestBody: {
        required: true,
        description:
          'Exactly eventType, timestamp, tenant, licence and error; the absent one of licence and error is null',
        content: {
          'application/json': {
            schema: { $ref: getSchemaPath(LicenceEventPayloadSchema) },
            examples: {
              success: { summary: 'LICENCE_CREATED_SUCCESS', value: SUCCESS_EVENT_EXAMPLE },
              failed: { summary: 'LICENCE_CREATED_FAILED', value: FAILED_EVENT_EXAMPLE },
            },
          },
        },
      },
      responses: {
        '2XX': { description: 'Received (answered within 30 s): the delivery is SUCCESS' },
        default: {
          description:
            'Anything else, or no answer within 30 s: the delivery is FAILED, with this status code in the ' +
            'history, and is not resent',
        },
      },
    },
  };
}

/** Builds the OpenAPI 3.0 document from the controllers' and DTOs' decorators, then completes it. */
export function createOpenApiDocument(app: INestApplication, version: string): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Partner Integration Service')
    .setDescription(DESCRIPTION)
    .setVersion(version)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'The `token` of POST /auth/login, valid 14400000 ms (4 hours)',
      },
      BEARER_SCHEME,
    )
    .addSecurityRequirements(BEARER_SCHEME);
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: operationId,
    extraModels: [ErrorBodySchema, LicenceEventPayloadSchema],
    autoTagControllers: false,
  });

  // Components shared by the additions below.
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

  const publicIds = publicOperationIds(app);
  for (const operation of operations(document)) {
    // Public operations (login, health): no token. Everything else inherits the global bearer
    // requirement, as does a public one that names it (its own guard checks the token: GET /metrics).
    if (operation.operationId && publicIds.has(operation.operationId)) {
      if (operation.security?.length) delete operation.security;
      else operation.security = [];
    }

    operation.parameters = [
      ...(operation.parameters ?? []),
      { $ref: `#/components/parameters/${REQUEST_ID_HEADER}` },
    ];

    const responses = operation.responses as Record<string, ResponseObject>;
    responses['500'] ??= {
      description: 'Internal server error (never a stack trace or SQL)',
      content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorBodySchema) } } },
    };
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

    const callbacks = operation.callbacks as Record<string, Record<string, PathItemObject>> | undefined;
    const callback = callbacks?.[LICENCE_EVENT_CALLBACK];
    if (callback) {
      for (const expression of Object.keys(callback)) callback[expression] = licenceEventCallback(version);
    }
  }
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
