/**
 * The architecture's one written picture: which folder of src/ may import which. `npm run check`
 * runs it (depcruise src), so a new cycle or forbidden import fails CI.
 *
 * Folders of src/ and their roles:
 *   (root)          composition root: main.ts, app.module.ts, app.factory.ts, cli.ts, entities.ts
 *   config/         typed configuration, validated at boot; imports nothing outside config/
 *   common/         cross-cutting and generic (auth decorators, errors, paging, OpenAPI helpers,
 *                   rate limits, validation); imports no feature
 *   database/       data-source options, the Postgres provider (pool, named statements, own
 *                   connections), migrations runner, embedded PostgreSQL, shared SQL helpers;
 *                   imports no feature (the entity list is the root's)
 *   licence-events/ the licence-event contract: event classes, payloads, the body sent, its OpenAPI
 *                   schemas and the stored event (webhook_events); imports only common/
 *   auth/           login, JWT strategy and guards, token checks (uses users/)
 *   users/          user accounts, passwords, the bootstrap administrator
 *   subscriptions/  webhook subscriptions and their signing secrets
 *   deliveries/     the delivery history: read it, record attempts (a leaf: never the dispatcher)
 *   dispatcher/     the outbox and the delivery worker; others use only its index.ts
 *                   (DispatcherModule, LicenceEventPublisher, WebhookOutbox)
 *   partner-tools/  resend, recover and test events: deliveries' history into the dispatcher's outbox
 *   event-types/    the read-only catalogue of event types, from the licence-event contract
 *   retention/      deletes old rows through the batches their owners export
 *   metrics/        Prometheus /metrics; features report to it, it imports none of theirs
 *   health/         liveness and readiness
 *   docs/           the OpenAPI document and Swagger UI, assembled from app.module
 *   portal/         serves the built partner portal
 *   tracing/        OpenTelemetry (contract section 12): register.ts starts the SDK before Nest when
 *                   an OTLP endpoint is set; the publish and attempt spans the dispatcher makes;
 *                   imports only config/ and common/
 *
 * Unit specs (*.spec.ts) are not cruised: tests may reach into what they test.
 */
const FEATURES =
  'auth|users|subscriptions|deliveries|dispatcher|partner-tools|event-types|retention|metrics|health|portal';
const ROOT_FILE = '^src/[^/]+\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle makes two folders one: neither can change, load or be tested without the other.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment: 'The same between folders: a file cycle can be absent while two folders import each other.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'deliveries-not-dispatcher',
      comment: 'The dispatcher writes the history: the history calling back into it would be a cycle.',
      severity: 'error',
      from: { path: '^src/deliveries/' },
      to: { path: '^src/dispatcher/' },
    },
    {
      name: 'database-not-features',
      comment: 'Every feature uses database/; it knows none of them (entities come from the root).',
      severity: 'error',
      from: { path: '^src/database/' },
      to: { path: [`^src/(${FEATURES}|licence-events|docs)/`, ROOT_FILE] },
    },
    {
      name: 'docs-not-features',
      comment: 'The document is assembled from the running app (app.module), not from features by hand.',
      severity: 'error',
      from: { path: '^src/docs/' },
      to: {
        path: [`^src/(${FEATURES}|licence-events|database)/`, ROOT_FILE],
        pathNot: '^src/app\\.module\\.ts$',
      },
    },
    {
      name: 'common-not-features',
      comment: 'common/ is what every feature may use: depending on one would tie them all to it.',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: [`^src/(${FEATURES}|licence-events|database|docs)/`, ROOT_FILE] },
    },
    {
      name: 'config-only-config',
      comment: 'Configuration loads first and alone (also for the CLI and ormconfig.ts).',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/config/' },
    },
    {
      name: 'licence-events-only-common',
      comment:
        'The event contract is shared by the dispatcher, the history and the docs: it depends on none.',
      severity: 'error',
      from: { path: '^src/licence-events/' },
      to: { path: '^src/', pathNot: '^src/(licence-events|common)/' },
    },
    {
      name: 'dispatcher-through-its-index',
      comment: 'Only what the dispatcher exports (dispatcher/index.ts) is its contract; the rest may change.',
      severity: 'error',
      // The root's entity list names every entity file, the dispatcher's too.
      from: { path: '^src/', pathNot: ['^src/dispatcher/', '^src/entities\\.ts$'] },
      to: { path: '^src/dispatcher/', pathNot: '^src/dispatcher/index\\.ts$' },
    },
    {
      name: 'metrics-not-features',
      comment:
        'Features report to metrics (the dispatcher registers its gauges); metrics reads none of them.',
      severity: 'error',
      from: { path: '^src/metrics/' },
      to: { path: `^src/(${FEATURES})/`, pathNot: '^src/(metrics|auth)/' },
    },
    {
      name: 'only-the-root-imports-retention',
      comment: 'Retention calls its owners; an owner importing it would be a cycle.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/retention/', ROOT_FILE] },
      to: { path: '^src/retention/' },
    },
    {
      name: 'only-the-root-imports-partner-tools',
      comment:
        'The partner tools sit on top of deliveries, subscriptions and the dispatcher; nothing uses them.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/partner-tools/', ROOT_FILE, '^src/docs/'] },
      to: { path: '^src/partner-tools/' },
    },
    {
      name: 'postgres-through-database',
      comment:
        'One way to PostgreSQL: TypeORM, or database/postgres.ts for its pool, named statements and connections of their own (pg types are fine).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/database/' },
      to: { path: '^node_modules/pg/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-driver-casts',
      comment: "TypeORM's pg pool is reached through database/postgres.ts, never by casting its driver.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/database/' },
      to: { path: '^node_modules/typeorm/driver/postgres/' },
    },
    {
      name: 'tracing-only-config-and-common',
      comment: 'Tracing starts before everything else (main.ts imports it first): it depends on no feature.',
      severity: 'error',
      from: { path: '^src/tracing/' },
      to: { path: '^src/', pathNot: '^src/(tracing|config|common)/' },
    },
    {
      name: 'tracing-sdk-only-when-on',
      comment:
        'The SDK loads only with an OTLP endpoint set: register.ts requires tracing-sdk.ts then (and it ' +
        'its exporter wrapper); nothing else may import either, or the SDK would load with tracing off.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/tracing/(register|tracing-sdk)\\.ts$' },
      to: { path: '^src/tracing/(tracing-sdk|scrubbing-exporter)\\.ts$' },
    },
    {
      name: 'opentelemetry-sdk-only-in-tracing-sdk',
      comment:
        'Spans are made through @opentelemetry/api (no-op without the SDK); the rest stays behind tracing-sdk.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/tracing/(tracing-sdk|scrubbing-exporter)\\.ts$' },
      to: { path: '@opentelemetry/(?!api/)' },
    },
    {
      name: 'statements-stay-home',
      comment: 'A *.statement.ts is its owner’s SQL on its own table: other folders call the owner instead.',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '\\.statement\\.ts$', pathNot: '^src/$1/' },
    },
  ],
  options: {
    // Migrations are frozen history outside src/: what they import is not the architecture.
    doNotFollow: { path: ['node_modules', '^migrations/'] },
    exclude: { path: '\\.spec\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default'] },
  },
};
