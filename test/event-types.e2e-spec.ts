import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { UserRole, WebhookEvent } from '../src/common/reference/enums';
import { ISO_DATE_TIME } from '../src/common/reference/formats';
import { createSubscription, licence, startDispatcherApp } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import { startTestApp, TestApp, TestUser } from './support/test-app';

type Json = Record<string, any>;

const PATH = '/webhooks/event-types';
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const EVENT_TYPES = [WebhookEvent.LICENCE_CREATED_SUCCESS, WebhookEvent.LICENCE_CREATED_FAILED];
const ERROR_BODY_KEYS = ['error', 'message', 'path', 'requestId', 'status', 'timestamp'];
/** Listed here, not taken from the builder, so a keyword the builder drops is found. */
const CONSTRAINTS = ['type', 'enum', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum'];

/**
 * Ajv's JSON Schema 2020-12 build in strict mode (unknown keywords, formats or types are compile
 * errors), with ajv-formats' `email` and `date-time` in full mode, as a receiver would validate, and
 * the spec's own timestamp shape on top (contract section 7).
 */
function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv, { mode: 'full', formats: ['email'] });
  const { validate } = addFormats.get('date-time', 'full') as { validate: (text: string) => boolean };
  ajv.addFormat('date-time', (text: string) => ISO_DATE_TIME.test(text) && validate(text));
  return ajv;
}

/** `$ref` of an OpenAPI property: direct, or the `allOf: [$ref]` @nestjs/swagger writes beside a description. */
const refOf = (property: Json): string | undefined => property.$ref ?? property.allOf?.[0]?.$ref;

/**
 * The keyword-by-keyword reading of a catalogue schema (JSON Schema 2020-12) as the OpenAPI 3.0
 * component of the same name: the same members, required, descriptions and constraints; `null` is
 * OpenAPI's `nullable` + `enum: [null]`; `#/$defs/X` is `#/components/schemas/X`; `examples: [x]`
 * is `example: x`. Returns the differences.
 */
function differences(catalogue: Json, component: Json, components: Json, where: string): string[] {
  const found: string[] = [];
  const same = (what: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      found.push(`${where}${what}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`);
    }
  };
  same('.description', catalogue.description, component.description);
  same('.required', catalogue.required, component.required);
  same('.additionalProperties', catalogue.additionalProperties, component.additionalProperties);
  same(' members', Object.keys(catalogue.properties), Object.keys(component.properties));
  for (const [name, property] of Object.entries(catalogue.properties as Record<string, Json>)) {
    const documented: Json = component.properties[name] ?? {};
    const at = `.${name}`;
    same(`${at}.description`, property.description, documented.description);
    if (property.type === 'null') {
      same(`${at} (null)`, [true, [null]], [documented.nullable, documented.enum]);
    } else if (property.$ref) {
      same(`${at}.$ref`, property.$ref.replace('#/$defs/', '#/components/schemas/'), refOf(documented));
    } else {
      // An enumeration OpenAPI names (enumName) is a component of its own.
      const ref = refOf(documented);
      const resolved = ref ? { ...components[ref.split('/').pop()!], ...documented } : documented;
      for (const keyword of CONSTRAINTS) {
        same(`${at}.${keyword}`, property[keyword], resolved[keyword]);
      }
      same(
        `${at}.example`,
        property.examples,
        documented.example === undefined ? undefined : [documented.example],
      );
    }
  }
  return found;
}

describe('Event-type catalogue: GET /webhooks/event-types (contract section 11)', () => {
  let t: TestApp;
  let partner: TestUser;
  let admin: TestUser;
  let receiver: Receiver;
  let catalogue: Json;
  const validators = new Map<string, ValidateFunction>();

  beforeAll(async () => {
    // A long time-out: every delivery arrives, even on a loaded machine.
    t = await startDispatcherApp({ WEBHOOK_TIMEOUT_MS: '15000' });
    partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    admin = await t.createUser({ admin: true });
    receiver = await Receiver.start(testCa().server, { status: 200 });
    catalogue = (await t.http().get(PATH).set('authorization', `Bearer ${partner.token}`).expect(200)).body;
    const ajv = strictAjv();
    for (const entry of catalogue.content) validators.set(entry.name, ajv.compile(entry.schema));
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  const get = (path: string, user?: TestUser) => {
    const req = t.http().get(path);
    return user ? req.set('authorization', `Bearer ${user.token}`) : req;
  };
  const entryOf = (name: string): Json => catalogue.content.find((entry: Json) => entry.name === name);
  /** The ajv error paths and keywords of `body` against the catalogue schema of `eventType`. */
  const problems = (eventType: string, body: unknown): string[] => {
    const validate = validators.get(eventType)!;
    return validate(body) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.keyword}`);
  };

  describe('the list', () => {
    it('is a page envelope of one entry per event type, each with name, description, schema, example and a self link', async () => {
      const res = await get(PATH, partner).expect(200);
      expect(res.headers['content-type']).toBe('application/hal+json;charset=UTF-8');
      expect(res.body).toMatchObject({
        totalElements: 2,
        totalPages: 1,
        numberOfElements: 2,
        number: 0,
        size: 20,
        first: true,
        last: true,
        empty: false,
        _links: {
          self: { href: `${PATH}?size=20&page=0` },
          first: { href: `${PATH}?size=20&page=0` },
          last: { href: `${PATH}?size=20&page=0` },
        },
      });
      expect(res.body._links.next).toBeUndefined();
      expect(res.body.content.map((entry: Json) => entry.name)).toEqual(EVENT_TYPES);
      for (const entry of res.body.content) {
        expect(Object.keys(entry)).toEqual(['name', 'description', 'schema', 'example', '_links']);
        expect(entry.description).toEqual(expect.stringMatching(/\w{10}/));
        expect(entry.schema.$schema).toBe(DIALECT);
        expect(entry.example.eventType).toBe(entry.name);
        expect(entry._links).toEqual({ self: { href: `${PATH}/${entry.name}` } });
        // The self link answers the same entry.
        expect((await get(entry._links.self.href, partner).expect(200)).body).toEqual(entry);
      }
    });

    it('pages like every list: size and page kept in the links, a page past the end empty, a bad size 400', async () => {
      const second = await get(`${PATH}?size=1&page=1`, partner).expect(200);
      expect(second.body.content.map((entry: Json) => entry.name)).toEqual([
        WebhookEvent.LICENCE_CREATED_FAILED,
      ]);
      expect(second.body._links.prev).toEqual({ href: `${PATH}?size=1&page=0` });
      expect(second.body).toMatchObject({ totalPages: 2, last: true, first: false });
      const past = await get(`${PATH}?page=7`, partner).expect(200);
      expect(past.body).toMatchObject({ content: [], empty: true, number: 7 });
      const bad = await get(`${PATH}?size=0`, partner).expect(400);
      expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'size' })]);
    });

    it('answers administrators too, and 404 with the error body for a name that is no event type', async () => {
      const res = await get(PATH, admin).expect(200);
      expect(res.body.content).toEqual(catalogue.content);
      const missing = await get(`${PATH}/LICENCE_DELETED`, partner).expect(404);
      expect(Object.keys(missing.body).sort()).toEqual(ERROR_BODY_KEYS);
      expect(missing.body.path).toBe(`${PATH}/LICENCE_DELETED`);
    });

    it('is 403 for ROLE_CLIENT and ROLE_BRANCH and 401 without a token, with the error body', async () => {
      for (const role of [UserRole.ROLE_CLIENT, UserRole.ROLE_BRANCH]) {
        const user = await t.createUser({ role, tenant: partner.tenant });
        for (const path of [PATH, `${PATH}/${WebhookEvent.LICENCE_CREATED_SUCCESS}`]) {
          const res = await get(path, user).expect(403);
          expect(Object.keys(res.body).sort()).toEqual(ERROR_BODY_KEYS);
        }
      }
      const anonymous = await get(PATH).expect(401);
      expect(Object.keys(anonymous.body).sort()).toEqual(ERROR_BODY_KEYS);
      await get(PATH).set('authorization', 'Bearer not-a-token').expect(401);
    });
  });

  describe('the schemas', () => {
    it('compile with ajv 2020-12 in strict mode, and each example is valid against its own schema only', () => {
      expect(validators.size).toBe(2);
      for (const name of EVENT_TYPES) {
        const { example } = entryOf(name);
        expect(problems(name, example)).toEqual([]);
        const other = EVENT_TYPES.find((type) => type !== name)!;
        expect(problems(other, example)).not.toEqual([]);
      }
    });

    it('refuse a changed body: letters in the phone number, an extra member, a missing or wrong null', () => {
      const success = entryOf(WebhookEvent.LICENCE_CREATED_SUCCESS).example;
      const failed = entryOf(WebhookEvent.LICENCE_CREATED_FAILED).example;
      const withoutError = { ...success };
      delete withoutError.error;
      const cases: Array<[string, Json, string[]]> = [
        [
          'phone number with letters',
          { ...success, licence: { ...success.licence, phoneNumber: '11 9876-ABCD' } },
          ['/licence/phoneNumber pattern'],
        ],
        ['an extra member', { ...success, extra: 1 }, [' additionalProperties']],
        [
          'an extra licence member',
          { ...success, licence: { ...success.licence, cpf: '1' } },
          ['/licence additionalProperties'],
        ],
        ['no error member', withoutError, [' required']],
        ['licence null on a success', { ...success, licence: null }, ['/licence type']],
        ['an error on a success', { ...success, error: failed.error }, ['/error type']],
        [
          'a status that is no licence status',
          { ...success, licence: { ...success.licence, status: 'LOST' } },
          ['/licence/status enum'],
        ],
        [
          'a negative price',
          { ...success, licence: { ...success.licence, pricing: -1 } },
          ['/licence/pricing minimum'],
        ],
        [
          'a clientId that is not an integer',
          { ...success, licence: { ...success.licence, clientId: 1.5 } },
          ['/licence/clientId type'],
        ],
        [
          'an e-mail that is none',
          { ...success, licence: { ...success.licence, email: 'maria' } },
          ['/licence/email format'],
        ],
        [
          'a timestamp not in UTC milliseconds',
          { ...success, timestamp: '2026-11-21T10:00:00Z' },
          ['/timestamp pattern', '/timestamp format'],
        ],
        [
          'another event type',
          { ...success, eventType: WebhookEvent.LICENCE_CREATED_FAILED },
          ['/eventType enum'],
        ],
        ['an empty tenant', { ...success, tenant: '' }, ['/tenant minLength']],
      ];
      for (const [what, body, expected] of cases) {
        expect({ what, problems: problems(WebhookEvent.LICENCE_CREATED_SUCCESS, body) }).toEqual({
          what,
          problems: expected,
        });
      }
      expect(problems(WebhookEvent.LICENCE_CREATED_FAILED, { ...failed, error: { message: 'x' } })).toEqual([
        '/error required',
      ]);
      expect(
        problems(WebhookEvent.LICENCE_CREATED_FAILED, { ...failed, error: { ...failed.error, type: '' } }),
      ).toEqual(['/error/type minLength']);
    });

    it('accept every body delivered: published events and test events of both types, at a real HTTPS receiver', async () => {
      const subscription = await createSubscription(t, { tenant: partner.tenant, url: receiver.url() });
      const publish = (body: Json) =>
        t
          .http()
          .post('/admin/licence-events')
          .set('authorization', `Bearer ${admin.token}`)
          .send(body)
          .expect(202);
      await publish({
        eventType: WebhookEvent.LICENCE_CREATED_SUCCESS,
        tenant: partner.tenant,
        licence: licence(),
      });
      await publish({
        eventType: WebhookEvent.LICENCE_CREATED_FAILED,
        tenant: partner.tenant,
        error: { message: 'Plan 3 is not available for client 7', type: 'PlanNotAvailableException' },
      });
      for (const eventType of EVENT_TYPES) {
        await t
          .http()
          .post(`/webhooks/subscriptions/${subscription.id}/test`)
          .set('authorization', `Bearer ${partner.token}`)
          .send({ eventType })
          .expect(202);
      }
      const receipts = await receiver.waitFor(4, 30_000);
      expect(receipts.map((r) => r.body.eventType).sort()).toEqual([...EVENT_TYPES, ...EVENT_TYPES].sort());
      for (const receipt of receipts) {
        // The bytes as sent, not the receiver's lenient parse.
        const body: unknown = JSON.parse(receipt.raw);
        expect({ body, problems: problems(receipt.body.eventType, body) }).toEqual({ body, problems: [] });
      }
    });
  });

  describe('the OpenAPI document', () => {
    it('holds the same schemas as components of the names the catalogue gives, referenced by the EventType example', async () => {
      const document: Json = (await t.http().get('/openapi.json').expect(200)).body;
      const components: Json = document.components.schemas;
      expect(components.EventType.properties.example.oneOf).toEqual([
        { $ref: '#/components/schemas/LicenceCreatedSuccessEvent' },
        { $ref: '#/components/schemas/LicenceCreatedFailedEvent' },
      ]);
      expect(catalogue.content.map((entry: Json) => entry.schema.title)).toEqual([
        'LicenceCreatedSuccessEvent',
        'LicenceCreatedFailedEvent',
      ]);
      for (const { schema } of catalogue.content) {
        expect(Object.keys(schema.$defs).sort()).toEqual(
          schema.title === 'LicenceCreatedSuccessEvent' ? ['Licence'] : ['LicenceError'],
        );
        const named: Array<[string, Json]> = [
          [schema.title, schema],
          ...Object.entries(schema.$defs as Json),
        ];
        for (const [name, part] of named) {
          expect(part.additionalProperties).toBe(false);
          expect(differences(part, components[name], components, name)).toEqual([]);
        }
      }
    });

    it('the comparison itself can fail: a changed constraint, description or member is found', async () => {
      const document: Json = (await t.http().get('/openapi.json').expect(200)).body;
      const components: Json = document.components.schemas;
      const { schema } = entryOf(WebhookEvent.LICENCE_CREATED_SUCCESS);
      const licenceSchema = schema.$defs.Licence;
      const phone = { ...licenceSchema.properties.phoneNumber, pattern: '^.*$' };
      const changed = { ...licenceSchema, properties: { ...licenceSchema.properties, phoneNumber: phone } };
      expect(differences(changed, components.Licence, components, 'Licence')).toEqual([
        'Licence.phoneNumber.pattern: "^.*$" ≠ "^\\\\d{8,15}$"',
      ]);
      const widened = { ...components.Licence, properties: { ...components.Licence.properties, cpf: {} } };
      expect(differences(licenceSchema, widened, components, 'L')).toEqual([
        expect.stringMatching(/^L members: /),
      ]);
      expect(differences({ ...schema, description: 'x' }, components[schema.title], components, 'S')).toEqual(
        [expect.stringMatching(/^S\.description: "x" ≠ /)],
      );
      const open = { ...components.Licence, additionalProperties: undefined };
      expect(differences(licenceSchema, open, components, 'L')).toEqual([
        'L.additionalProperties: false ≠ undefined',
      ]);
    });
  });

  it('is rate limited like every authenticated endpoint: 429 with Retry-After past the limit', async () => {
    const limited = await startTestApp({ RATE_LIMIT_API_PER_MINUTE: '3' });
    try {
      const user = await limited.createUser({ role: UserRole.ROLE_PARTNER });
      const statuses: number[] = [];
      let last: Json = {};
      for (let i = 0; i < 4; i++) {
        last = await limited.http().get(PATH).set('authorization', `Bearer ${user.token}`);
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
      expect(last.body).toMatchObject({ status: 429, path: PATH });
    } finally {
      await limited.close();
    }
  });
});
