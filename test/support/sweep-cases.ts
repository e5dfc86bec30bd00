import fc from 'fast-check';
import {
  boundaryNumberText,
  hasLoneSurrogate,
  nonObjectBody,
  oddString,
  oddValue,
  schemaViolation,
  unknownFields,
} from './bad-input';
import { fieldsOf, JsonSchema, Operation } from './openapi-operations';
import type { SweepRequest } from './sweep-client';

/** What a case needs to know about the service under test for one operation. */
export interface SweepTarget {
  op: Operation;
  /** The Authorization header of the caller the operation is for (none for public ones). */
  authorization?: string;
  /** Another caller's, who may not use the operation (403), when there is one. */
  forbiddenAuthorization?: string;
  /** Path parameters that name the caller's own resources. */
  ids: Record<string, string>;
  /** Path parameters naming another tenant's resources, for a partner caller. */
  foreignIds?: Record<string, string>;
  /** A fresh valid body (unique where it must be). */
  validBody?: () => unknown;
  /** Fields of the body the service ignores for this caller (contract section 3: tenant). */
  ignoredFields?: string[];
  /** Another tenant's data that no answer to this caller may contain. */
  secrets: string[];
}

/** One generated request and what the contract says of its answer. */
export interface SweepCase {
  request: SweepRequest;
  /** Statuses the contract allows (a 429 may always answer first); undefined: anything but a 5xx. */
  expected?: number[];
  why?: string;
  /** The X-Request-Id the answer must carry: the caller's own, or a new UUID ('new'). */
  requestId?: string | 'new';
}

export interface Category<Spec> {
  name: string;
  applies(op: Operation): boolean;
  /** fast-check runs per operation (before SWEEP_RUNS scales them). */
  runs: number;
  specs(target: SweepTarget): fc.Arbitrary<Spec>;
  /** Inputs the contract names, tried first whatever the seed. */
  examples(target: SweepTarget): Spec[];
  build(target: SweepTarget, spec: Spec): SweepCase;
}

const JSON_TYPE = 'application/json';

/** Percent-encodes a path segment or query value; a lone surrogate goes as its three raw bytes. */
export function percentEncode(text: string): string {
  return Array.from(text, (ch) => {
    if (!hasLoneSurrogate(ch)) return encodeURIComponent(ch);
    const unit = ch.charCodeAt(0);
    return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
      .map((byte) => `%${byte.toString(16).toUpperCase()}`)
      .join('');
  }).join('');
}

function concretePath(op: Operation, ids: Record<string, string>): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]);
}

function request(target: SweepTarget, parts: Partial<SweepRequest> & { ids?: Record<string, string> }) {
  const { ids = target.ids, headers, ...rest } = parts;
  const body = target.validBody ? JSON.stringify(target.validBody()) : undefined;
  return {
    method: target.op.method,
    path: concretePath(target.op, ids),
    body,
    ...rest,
    headers: {
      ...(target.authorization ? { authorization: target.authorization } : {}),
      ...(body !== undefined || rest.body !== undefined ? { 'content-type': JSON_TYPE } : {}),
      ...headers,
    },
  };
}

// ---- bodies that are not objects --------------------------------------------------------------

export const nonObjectBodies: Category<string> = {
  name: 'a body that is not an object',
  applies: (op) => op.body !== undefined,
  runs: 6,
  specs: () => nonObjectBody,
  examples: () => ['null', '[]', '"x"'],
  build: (target, body) => ({
    request: request(target, { body }),
    expected: [400],
    why: 'a body that is not an object is 400 (contract section 4)',
  }),
};

// ---- a body where the operation takes none -----------------------------------------------------

/**
 * Contract section 4: any unknown field is a 400 naming it, so on an operation that documents no
 * body, every field of one is. GET bodies are never read (Fastify does not parse them).
 */
export const bodiesWhereNone: Category<Record<string, unknown>> = {
  name: 'a body with fields where the operation takes none',
  applies: (op) => op.body === undefined && op.method.toUpperCase() !== 'GET',
  runs: 4,
  specs: () => unknownFields,
  examples: () => [{ foo: 1 }],
  build: (target, fields) => ({
    request: request(target, { body: JSON.stringify(fields) }),
    // The logout fixture's token was revoked when the sweep logged it out: its guard answers first.
    expected: target.op.id === 'Auth_logout' ? [400, 401] : [400],
    why: 'every field is unknown where no body is taken (contract section 4)',
  }),
};

// ---- fields: missing, mistyped, odd, unknown ----------------------------------------------------

export type FieldMutation =
  { drop: string[] } | { set: string[]; value: unknown } | { add: Record<string, unknown> };

function fieldMutation(op: Operation): fc.Arbitrary<FieldMutation> {
  const paths = fieldsOf(op.body!).map(([path]) => path);
  const stringPaths = fieldsOf(op.body!)
    .filter(([, schema]) => schema.type === 'string')
    .map(([path]) => path);
  return fc.oneof(
    fc.constantFrom(...paths).map((path) => ({ drop: path })),
    fc.record({ set: fc.constantFrom(...paths), value: oddValue }),
    fc.record({ set: fc.constantFrom(...stringPaths), value: oddString as fc.Arbitrary<unknown> }),
    unknownFields.map((add) => ({ add })),
  );
}

function applyMutation(body: Record<string, unknown>, mutation: FieldMutation): void {
  if ('add' in mutation) return void Object.assign(body, mutation.add);
  const path = 'drop' in mutation ? mutation.drop : mutation.set;
  let parent: unknown = body;
  for (const key of path.slice(0, -1)) {
    const record = parent as Record<string, unknown>;
    if (record[key] === undefined || record[key] === null) {
      if ('drop' in mutation) return;
      record[key] = {};
    }
    parent = record[key];
    if (typeof parent !== 'object' || parent === null || Array.isArray(parent)) return;
  }
  const leaf = path[path.length - 1];
  if ('drop' in mutation) delete (parent as Record<string, unknown>)[leaf];
  else (parent as Record<string, unknown>)[leaf] = mutation.value;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first thing in the body the schema plainly refuses (see schemaViolation), with its field. */
export function bodyViolation(
  schema: JsonSchema,
  body: unknown,
  ignored: string[] = [],
  at = '',
): string | undefined {
  if (!isPlainObject(body)) return schemaViolation(schema, body) && `${at || 'body'}: not an object`;
  const properties = schema.properties ?? {};
  for (const key of schema.required ?? []) if (!(key in body)) return `${at}${key}: missing`;
  for (const [key, value] of Object.entries(body)) {
    const field = `${at}${key}`;
    if (ignored.includes(field)) continue;
    const fieldSchema = properties[key];
    if (!fieldSchema) return `${field}: unknown field`;
    const violation = schemaViolation(fieldSchema, value);
    if (violation) return `${field}: ${violation}`;
    const items = Array.isArray(value) && fieldSchema.items ? value : [];
    const itemViolation = items.map((item) => schemaViolation(fieldSchema.items!, item)).find(Boolean);
    if (itemViolation) return `${field}[]: ${itemViolation}`;
    const nested = fieldSchema.properties && bodyViolation(fieldSchema, value, ignored, `${field}.`);
    if (nested) return nested;
  }
  return undefined;
}

function containsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return hasLoneSurrogate(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, item]) => hasLoneSurrogate(key) || containsLoneSurrogate(item));
}

/** The contract's verdict on a body: 400 when a string is not well-formed or the schema refuses it. */
function bodyVerdict(target: SweepTarget, body: unknown): Pick<SweepCase, 'expected' | 'why'> {
  if (containsLoneSurrogate(body)) {
    return { expected: [400], why: 'a lone surrogate is 400 in every field (contract section 4)' };
  }
  const violation = bodyViolation(target.op.body!, body, target.ignoredFields);
  return violation ? { expected: [400], why: `the document refuses it: ${violation}` } : {};
}

export const fieldMutations: Category<FieldMutation[]> = {
  name: 'missing, mistyped, odd and unknown fields',
  applies: (op) => op.body !== undefined && Object.keys(op.body.properties ?? {}).length > 0,
  runs: 30,
  specs: (target) => fc.array(fieldMutation(target.op), { minLength: 1, maxLength: 3 }),
  examples: (target) => [
    ...fieldsOf(target.op.body!)
      .filter(([, schema]) => schema.type === 'string')
      .map(([path]): FieldMutation[] => [{ set: path, value: 'a\ud800b' }]),
    [
      {
        add: Object.fromEntries(
          Array.from({ length: 300 }, (_, i) => [`x${String(i).padStart(60, '0')}`, i]),
        ),
      },
    ],
  ],
  build: (target, mutations) => {
    const body = target.validBody!() as Record<string, unknown>;
    for (const mutation of mutations) applyMutation(body, mutation);
    return { request: request(target, { body: JSON.stringify(body) }), ...bodyVerdict(target, body) };
  },
};

// ---- media types and charsets -------------------------------------------------------------------

/** Request bodies are application/json or application/*+json in UTF-8 (contract section 4). */
const ACCEPTED_MEDIA_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON',
  'application/hal+json',
  'application/hal+json;charset=UTF-8',
  'application/vnd.partner+json',
];
const REFUSED_MEDIA_TYPES = [
  'application/json; charset=utf-16',
  'application/json; charset=UTF-16LE',
  'application/json; charset=iso-8859-1',
  'application/hal+json; charset=utf-16',
  'text/plain',
  'text/plain; charset=utf-8',
  'text/json',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/jsonx',
  'image/png',
];

export interface MediaSpec {
  contentType: string | null;
  /** The body's bytes in UTF-16 (as its label says) instead of UTF-8. */
  utf16: boolean;
}

export const mediaTypes: Category<MediaSpec> = {
  name: 'media types and charsets',
  applies: () => true,
  runs: 10,
  specs: () =>
    fc.record({
      contentType: fc.oneof(
        fc.constantFrom(...ACCEPTED_MEDIA_TYPES, ...REFUSED_MEDIA_TYPES),
        fc.constant(null),
        fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      ),
      utf16: fc.boolean(),
    }),
  examples: () => [
    { contentType: 'application/json; charset=utf-16', utf16: false },
    { contentType: 'application/json; charset=utf-16', utf16: true },
    { contentType: 'application/hal+json', utf16: false },
    { contentType: 'text/plain', utf16: false },
  ],
  build: (target, { contentType, utf16 }) => {
    const text = JSON.stringify(target.validBody ? target.validBody() : {});
    const base = request(target, { body: utf16 ? Buffer.from(text, 'utf16le') : text });
    const headers = { ...base.headers };
    if (contentType === null) delete headers['content-type'];
    else headers['content-type'] = contentType;
    const refused = contentType !== null && REFUSED_MEDIA_TYPES.includes(contentType);
    const accepted = ACCEPTED_MEDIA_TYPES.includes(contentType ?? '') && !utf16;
    if (!target.validBody || (!refused && !accepted)) return { request: { ...base, headers } };
    return refused
      ? { request: { ...base, headers }, expected: [415], why: 'another media type or charset is 415' }
      : {
          request: { ...base, headers },
          expected: [target.op.success],
          why: `${contentType} is read like application/json (contract section 4)`,
        };
  },
};

// ---- path ids: not numbers, out of range, another tenant's --------------------------------------

export interface PathIdSpec {
  param: string;
  /** The id as written, or 'foreign' for another tenant's resource. */
  value: string;
}

const MAX_ID = 2 ** 31 - 1;
/** Segments sent as written: encoded NUL, dots and slash, a lone %, a malformed escape. */
const RAW_SEGMENTS = ['%00', '%2e%2e', '1%2F2', '%', '%ZZ', '%E0%A4%A'];

/** An id the service may find: a positive integer of the id column's range, however written. */
const mayExist = (value: string) => /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_ID;

export const pathIds: Category<PathIdSpec> = {
  name: 'path ids: non-numeric, huge, negative, foreign',
  applies: (op) => op.pathParams.length > 0,
  runs: 12,
  specs: (target) =>
    fc.record({
      param: fc.constantFrom(...target.op.pathParams),
      value: fc.oneof(
        boundaryNumberText,
        oddString,
        fc.constantFrom('foreign', 'foreign', ...RAW_SEGMENTS, '..', '1;x', 'null', '{id}', ':id'),
      ),
    }),
  examples: (target) =>
    target.foreignIds ? target.op.pathParams.map((param) => ({ param, value: 'foreign' })) : [],
  build: (target, { param, value }) => {
    const foreign = value === 'foreign' && target.foreignIds;
    const written = foreign
      ? target.foreignIds![param]
      : RAW_SEGMENTS.includes(value)
        ? value
        : percentEncode(value);
    const req = request(target, { ids: { ...target.ids, [param]: written } });
    if (foreign) {
      return { request: req, expected: [404], why: "another tenant's resource is 404 (contract section 3)" };
    }
    if (mayExist(value)) return { request: req };
    return { request: req, expected: [400, 404, 414], why: 'an id that is not a positive 32-bit integer' };
  },
};

// ---- query parameters: extra ones, bad values ---------------------------------------------------

export type QuerySpec = Array<[name: string, value: string]>;

const PAGE = /^\d+$/;

/** The contract's verdict on one query parameter: paging and enumerated filters are 400 when bad. */
function queryViolation(op: Operation, [name, value]: [string, string]): string | undefined {
  const parameter = op.query.find((q) => q.name === name);
  if (!parameter) return undefined;
  if (name === 'page' && !PAGE.test(value)) return 'page is not an integer ≥ 0';
  if (name === 'size' && !(PAGE.test(value) && Number(value) >= 1 && Number(value) <= 100))
    return 'size not 1..100';
  if (parameter.schema.enum && !parameter.schema.enum.includes(value)) return `${name} not one of its values`;
  return undefined;
}

export const queryParameters: Category<QuerySpec> = {
  name: 'query parameters: bad values and extra ones',
  applies: () => true,
  runs: 10,
  specs: (target) =>
    fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(...target.op.query.map((q) => q.name), 'page', 'size'),
          fc.constantFrom('x', 'debug', '__proto__', 'constructor', 'q[]', 'a.b', 'token', 'id'),
        ),
        fc.oneof(boundaryNumberText, oddString, fc.constantFrom('', 'true', 'id,desc', 'name,sideways')),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  examples: (target) =>
    target.op.query.some((q) => q.name === 'size') ? [[['size', '101']], [['page', '-1']]] : [],
  build: (target, query) => {
    const base = request(target, {});
    const queryText = query
      .map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`)
      .join('&');
    const req = { ...base, path: `${base.path}?${queryText}` };
    const repeated = new Set(query.map(([name]) => name)).size < query.length;
    const violation = repeated
      ? undefined
      : query.map((pair) => queryViolation(target.op, pair)).find(Boolean);
    return violation ? { request: req, expected: [400], why: violation } : { request: req };
  },
};

// ---- headers: Authorization and X-Request-Id ----------------------------------------------------

export type HeaderSpec = { authorization: string | null } | { forbidden: true } | { requestId: string };

const VALID_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export const headerVariants: Category<HeaderSpec> = {
  name: 'Authorization and X-Request-Id headers',
  applies: () => true,
  runs: 10,
  specs: (target) =>
    fc.oneof(
      ...(target.op.public
        ? []
        : [
            fc
              .constantFrom(
                '',
                'Bearer',
                'Bearer ',
                'Basic dXNlcjpwYXNz',
                'Bearer x.y.z',
                'Bearer ' + 'a'.repeat(6000),
              )
              .map((authorization) => ({ authorization })),
            fc
              .constantFrom(
                '{t} x',
                'Bearer {t} x',
                'Bearer  {t}',
                '{t}',
                'Bearer {t}x',
                'Bearer {t},Bearer {t}',
              )
              .map((shape) => ({ authorization: shape.replace(/\{t\}/g, target.authorization!.slice(7)) })),
            fc.constant({ authorization: null }),
          ]),
      ...(target.forbiddenAuthorization ? [fc.constant({ forbidden: true as const })] : []),
      fc
        .oneof(
          fc.stringMatching(/^[A-Za-z0-9._-]{1,128}$/),
          fc.constantFrom('', 'a'.repeat(129), 'a b', 'é', 'x,y', '<script>', '../x', '%41', 'a\tb'),
        )
        .map((requestId) => ({ requestId })),
    ),
  examples: () => [],
  build: (target, spec) => {
    const base = request(target, {});
    if ('requestId' in spec) {
      const expected = VALID_REQUEST_ID.test(spec.requestId) ? spec.requestId : 'new';
      return {
        request: { ...base, headers: { ...base.headers, 'x-request-id': spec.requestId } },
        requestId: expected,
      };
    }
    const headers = { ...base.headers };
    if ('forbidden' in spec) {
      headers.authorization = target.forbiddenAuthorization!;
      return { request: { ...base, headers }, expected: [403], why: 'not allowed to this caller' };
    }
    if (spec.authorization === null) delete headers.authorization;
    else headers.authorization = spec.authorization;
    return {
      request: { ...base, headers },
      expected: [401],
      why: 'Authorization is exactly "Bearer <token>"',
    };
  },
};

export const CATEGORIES = [
  nonObjectBodies,
  bodiesWhereNone,
  fieldMutations,
  mediaTypes,
  pathIds,
  queryParameters,
  headerVariants,
] as Array<Category<unknown>>;
