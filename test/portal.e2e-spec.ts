import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page, Request } from 'playwright-core';
import { WebhookEvent } from '../src/common/reference/enums';
import { PORTAL_DIR } from '../src/portal/portal.module';
import { browserMode, buildPortal, HOW_TO_GET_CHROMIUM, launchChromium } from './support/browser';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp, TestUser } from './support/test-app';
import { uniq } from './support/test-app';

/**
 * The partner portal (contract section 10) in a real browser: Debian's Chromium driven by
 * playwright-core, against the real service (embedded PostgreSQL, real HTTPS receivers), on the
 * portal as `npm run build` builds it. The tests run in order on one page, as one partner's day.
 */
const mode = browserMode();
if (mode === 'skip') process.stderr.write(`portal browser tests SKIPPED: ${HOW_TO_GET_CHROMIUM}\n`);

const UI_TIMEOUT = 20_000;
/** Not the default 24 hours: the portal says the overlap the service has. */
const SECRET_OVERLAP_MS = 90 * 60_000;
/** In the page: the focused control's label (or text) and its outline style. */
const FOCUSED = `(() => {
  const el = document.activeElement;
  if (!el) return { text: '', outline: 'none' };
  const label = el.id ? document.querySelector('label[for="' + el.id + '"]')?.textContent : undefined;
  return {
    text: (label ?? el.getAttribute('aria-label') ?? el.textContent ?? '').trim(),
    outline: getComputedStyle(el).outlineStyle,
  };
})()`;
/** Chromium's own line for a failed request: expected where a test provokes that status. */
const EXPECTED_HTTP_ERRORS =
  /^Failed to load resource: the server responded with a status of (400|401|404|429)/;

(mode === 'skip' ? describe.skip : describe)('Partner portal in Chromium', () => {
  if (mode === 'fail') {
    it('needs Chromium under CI', () => {
      throw new Error(`browser tests are required under CI=true: ${HOW_TO_GET_CHROMIUM}`);
    });
    return;
  }

  let t: TestApp;
  let portalDir: string;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;
  let admin: TestUser;
  let partner: TestUser;
  let other: TestUser;
  let otherSubscriptionId: number;
  let subscriptionId: number;
  const consoleErrors: string[] = [];
  const requestedUrls: string[] = [];
  const screenshots = process.env.PORTAL_SCREENSHOTS ?? join(tmpdir(), 'pis-portal-screenshots');

  const watch = (p: Page) => {
    p.on('console', (message) => {
      if (message.type() === 'error' && !EXPECTED_HTTP_ERRORS.test(message.text())) {
        consoleErrors.push(message.text());
      }
    });
    p.on('pageerror', (error) => consoleErrors.push(String(error)));
    p.on('request', (request) => requestedUrls.push(request.url()));
  };

  const newPage = async (viewport = { width: 1100, height: 900 }, timezoneId = 'UTC') => {
    const c = await browser.newContext({ viewport, timezoneId, locale: 'en-GB' });
    c.setDefaultTimeout(UI_TIMEOUT);
    const p = await c.newPage();
    watch(p);
    return { context: c, page: p };
  };

  const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { level: 1, name });
  const status = (p: Page, text: RegExp) => p.getByRole('status').filter({ hasText: text });
  const alert = (p: Page, text: RegExp) => p.getByRole('alert').filter({ hasText: text });

  async function logIn(p: Page, user: { email: string; password: string }) {
    await p.goto(`${t.url}/portal/login`);
    await p.getByLabel('E-mail').fill(user.email);
    await p.getByLabel('Password').fill(user.password);
    await p.getByRole('button', { name: 'Log in' }).click();
    await heading(p, 'Subscriptions').waitFor();
  }

  const api = (token: string) => ({
    get: (path: string) => t.http().get(path).set('authorization', `Bearer ${token}`),
  });

  async function publish(tenant: string): Promise<string> {
    const code = uniq('LIC');
    await t
      .http()
      .post('/admin/licence-events')
      .set('authorization', `Bearer ${admin.token}`)
      .send({ eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant, licence: licence({ code }) })
      .expect(202);
    return code;
  }

  /** The field is marked invalid, and the text it points to (aria-describedby) says why. */
  async function refusedBeside(p: Page, field: Locator, why: RegExp) {
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    const described = await field.getAttribute('aria-describedby');
    expect(await p.locator(`[id="${described}"]`).textContent()).toMatch(why);
  }

  /** The subscription's list filtered as the portal's filters do (API, partner's token). */
  async function listed(filters: string): Promise<Array<{ id: string; status: string; trigger?: string }>> {
    const res = await api(partner.token).get(
      `/webhooks/subscriptions/${subscriptionId}/deliveries?${filters}`,
    );
    return res.body.content ?? [];
  }

  beforeAll(async () => {
    portalDir = await buildPortal();
    t = await startDispatcherApp(
      { WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_SECRET_OVERLAP_MS: String(SECRET_OVERLAP_MS) },
      { configure: (builder) => builder.overrideProvider(PORTAL_DIR).useValue(portalDir) },
    );
    receiver = await Receiver.start(testCa().server, { status: 200 });
    admin = await t.createUser({ admin: true });
    partner = await t.createUser();
    other = await t.createUser();
    otherSubscriptionId = (
      await createSubscription(t, {
        tenant: other.tenant,
        url: receiver.url('/other'),
        name: 'Other tenant hook',
      })
    ).id;
    browser = await launchChromium();
    ({ page } = await newPage());
    await mkdir(screenshots, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
    if (portalDir) await rm(portalDir, { recursive: true, force: true });
  });

  it('logs a partner in and lists its (empty) subscriptions', async () => {
    await page.goto(`${t.url}/portal`);
    await heading(page, /Log in/).waitFor();
    await page.getByLabel('E-mail').fill(partner.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await alert(page, /Wrong e-mail or password/).waitFor();
    await logIn(page, partner);
    await page.getByText('0 subscriptions').waitFor();
  });

  it('says beside each field what the service refused in it, and in a summary only the rest', async () => {
    await page.getByRole('link', { name: 'New subscription' }).click();
    await heading(page, 'New subscription').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Refused hook');
    await page.getByLabel('Receiver URL (https)').fill('http://erp.example.com/hook'); // the browser takes http
    for (const type of Object.values(WebhookEvent)) await page.getByLabel(type, { exact: true }).uncheck();
    await page.getByLabel('Header name').fill('Connection');
    await page.getByLabel('Header value').fill('close');
    // A field the form does not have (a portal older than its service, say): only the summary can say it.
    await page.route('**/webhooks/subscriptions', (route) =>
      route.request().method() === 'POST'
        ? route.continue({ postData: JSON.stringify({ ...route.request().postDataJSON(), colour: 'red' }) })
        : route.continue(),
    );
    try {
      await page.getByRole('button', { name: 'Create subscription' }).click();
      await page.getByText(/^url must be an absolute https:\/\/ URL$/).waitFor();
    } finally {
      await page.unroute('**/webhooks/subscriptions');
    }
    await refusedBeside(
      page,
      page.getByLabel('Receiver URL (https)'),
      /^url must be an absolute https:\/\/ URL$/,
    );
    await refusedBeside(page, page.getByLabel('LICENCE_CREATED_FAILED'), /^events must be a non-empty array/);
    await refusedBeside(page, page.getByLabel('Header name'), /^headerName must not be a hop-by-hop header$/);
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByRole('alert').allTextContents()).toEqual([
      'The request was refused as invalid: colour: colour is not a known field.',
    ]);
    // The focus is on the first field refused, which says why.
    expect(await page.evaluate<{ text: string }>(FOCUSED)).toMatchObject({ text: 'Receiver URL (https)' });
    await page.screenshot({ path: join(screenshots, 'portal-form-errors.png'), fullPage: true });
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.screenshot({ path: join(screenshots, 'portal-375-form-errors.png'), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByText('0 subscriptions').waitFor();
  });

  it('creates a subscription with a custom header whose value is never shown', async () => {
    await page.getByRole('link', { name: 'New subscription' }).click();
    await heading(page, 'New subscription').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('ERP hook');
    await page.getByLabel('Receiver URL (https)').fill(receiver.url('/erp'));
    await page.getByLabel('Header name').fill('X-Partner-Key');
    await page.getByLabel('Header value').fill('s3cret-value');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await heading(page, 'ERP hook').waitFor();
    subscriptionId = Number(/\/subscriptions\/(\d+)$/.exec(page.url())![1]);
    await page.getByText('X-Partner-Key (value hidden)').waitFor();
    expect(await page.content()).not.toContain('s3cret-value');
  });

  it('edits it (the header kept, its value still unseen), then disables and enables it', async () => {
    await page.getByRole('link', { name: /^Edit/ }).click();
    await heading(page, 'Edit ERP hook').waitFor();
    expect(await page.getByLabel('Keep the current header (its value is never shown)').isChecked()).toBe(
      true,
    );
    expect(await page.content()).not.toContain('s3cret-value');
    await page.getByLabel('Name', { exact: true }).fill('ERP hook v2');
    await page.getByLabel(/^Most deliveries per second/).fill('5');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await heading(page, 'ERP hook v2').waitFor();
    await page.getByText('X-Partner-Key (value hidden)').waitFor();
    expect(await page.locator('dt:text("Most deliveries per second") + dd').textContent()).toBe('5');

    await page.getByRole('button', { name: /^Disable/ }).click();
    await status(page, /ERP hook v2 is now disabled/).waitFor();
    await page.getByRole('button', { name: /^Enable/ }).waitFor();
    let body = (await api(partner.token).get(`/webhooks/subscriptions/${subscriptionId}`).expect(200)).body;
    expect(body).toMatchObject({
      name: 'ERP hook v2',
      active: false,
      headerName: 'X-Partner-Key',
      maxDeliveriesPerSecond: 5, // the toggle's PUT leaves it out: kept
    });
    // Changed elsewhere while the page shows the old copy: enabling it must not undo that.
    const { name, url, events, headerName } = body;
    await t
      .http()
      .put(`/webhooks/subscriptions/${subscriptionId}`)
      .set('authorization', `Bearer ${partner.token}`)
      .send({ name, url, events, headerName, active: false, description: 'Changed elsewhere' })
      .expect(200);
    await page.getByRole('button', { name: /^Enable/ }).click();
    await status(page, /ERP hook v2 is now enabled/).waitFor();
    body = (await api(partner.token).get(`/webhooks/subscriptions/${subscriptionId}`).expect(200)).body;
    expect(body).toMatchObject({
      active: true,
      description: 'Changed elsewhere',
      headerName: 'X-Partner-Key',
    });
  });

  it('asks for the value again when a kept header is renamed: the browser refuses to save without it', async () => {
    await page.getByRole('link', { name: /^Edit/ }).click();
    await heading(page, 'Edit ERP hook v2').waitFor();
    await page.getByLabel('Header name').fill('X-Partner-Key-2');
    const value = page.getByLabel(/^Header value \(a renamed header needs its value again/);
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(
      await value.evaluate(
        (input) => (input as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing,
      ),
    ).toBe(true);
    await heading(page, 'Edit ERP hook v2').waitFor(); // not saved
    // The stored name again: nothing to ask, the field goes.
    await page.getByLabel('Header name').fill('X-Partner-Key');
    expect(await value.count()).toBe(0);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await heading(page, 'ERP hook v2').waitFor();
    const body = (await api(partner.token).get(`/webhooks/subscriptions/${subscriptionId}`).expect(200)).body;
    expect(body.headerName).toBe('X-Partner-Key');
  });

  it('sends a test event and shows its outcome once recorded; the receiver got the kept header', async () => {
    await page.getByRole('button', { name: 'Send test event' }).click();
    await status(page, /Delivered: SUCCESS \(HTTP 200, \d+ ms\)/).waitFor({ timeout: 30_000 });
    const test = receiver.receipts.find((r) => r.path === '/erp');
    expect(test?.headers['x-partner-key']).toBe('s3cret-value');
    expect(test?.body.licence?.code).toMatch(/^TEST-/);
  });

  it('clears the custom header on an edit', async () => {
    await page.getByRole('link', { name: /^Edit/ }).click();
    await page.getByLabel('Remove the custom header').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await heading(page, 'ERP hook v2').waitFor();
    await page.locator('dt:text("Custom header") + dd').getByText('none', { exact: true }).waitFor();
    const body = (await api(partner.token).get(`/webhooks/subscriptions/${subscriptionId}`).expect(200)).body;
    expect(body.headerName).toBeNull();
  });

  it("shows a FAILED delivery's detail, resends it to a receiver that now answers and shows SUCCESS", async () => {
    receiver.behaviour = { status: 503, body: 'receiver down for maintenance' };
    const before = (await listed('size=100')).length;
    const code = await publish(partner.tenant);
    await waitForDeliveries(t.dataSource, subscriptionId, before + 1, 15_000);

    await page.getByLabel('Status').selectOption('FAILED');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 delivery').waitFor();
    await page.getByRole('list', { name: 'Deliveries' }).getByRole('link').first().click();
    await heading(page, /^Delivery \d+$/).waitFor();
    await page.getByText('FAILED', { exact: true }).waitFor();
    expect(await page.getByLabel('Payload').textContent()).toContain(code);
    expect(await page.getByLabel('Response excerpt').textContent()).toBe('receiver down for maintenance');
    expect(await page.locator('dt:text("Duration") + dd').textContent()).toMatch(/^\d+ ms$/);
    if (process.env.PORTAL_SCREENSHOTS)
      await page.screenshot({ path: join(screenshots, 'portal-delivery.png') });

    receiver.behaviour = { status: 200 };
    await page.getByRole('button', { name: 'Resend this delivery' }).click();
    await status(page, /Delivered: SUCCESS \(HTTP 200/).waitFor({ timeout: 30_000 });
    const resent = receiver.receipts.filter((r) => r.body.licence?.code === code);
    expect(resent).toHaveLength(2);
    expect(resent[1].raw).toBe(resent[0].raw);
  });

  it('recovers every failed delivery since a chosen time', async () => {
    const since = new Date(Date.now() - 60_000).toISOString().slice(0, 16); // the browser runs in UTC
    receiver.behaviour = { status: 500, body: 'still down' };
    const before = (await listed('size=100')).length;
    await publish(partner.tenant);
    await publish(partner.tenant);
    await waitForDeliveries(t.dataSource, subscriptionId, before + 2, 15_000);
    receiver.behaviour = { status: 200 };

    await page.goto(`${t.url}/portal/subscriptions/${subscriptionId}`); // a deep link, same session
    await heading(page, 'ERP hook v2').waitFor();
    await page.getByLabel('Recover since (UTC)').fill(since);
    await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
    await page.getByRole('button', { name: 'Yes, send them again' }).click();
    await status(page, /^2 failed deliveries are being sent again/).waitFor();
    // The list shows the recovery's records as they are written, with nothing pressed.
    await page.locator('li.delivery', { hasText: '· RECOVER ·' }).nth(1).waitFor({ timeout: UI_TIMEOUT });
    expect(await listed('trigger=RECOVER&status=SUCCESS')).toHaveLength(2);

    await page.getByLabel('Trigger').selectOption('RECOVER');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('2 deliveries').waitFor();
    await mkdir(screenshots, { recursive: true });
    await page.getByLabel('Trigger').selectOption('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText(/^\d+ deliveries$/).waitFor();
    await page.screenshot({ path: join(screenshots, 'portal-deliveries.png'), fullPage: true });
  });

  it('refuses a recovery from a time to come beside its field, and asks the service nothing', async () => {
    const recovers: string[] = [];
    const onRequest = (r: Request) => void (r.url().endsWith('/recover') && recovers.push(r.url()));
    page.on('request', onRequest);
    try {
      const field = page.getByLabel('Recover since (UTC)');
      await field.fill(new Date(Date.now() + 86_400_000).toISOString().slice(0, 16)); // tomorrow, UTC
      await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
      await page.getByText(/^Choose a time in the past/).waitFor();
      await refusedBeside(page, field, /^Choose a time in the past: a recovery sends again .* until now\.$/);
      expect(await page.getByRole('button', { name: 'Yes, send them again' }).isVisible()).toBe(false);
      expect(await page.evaluate<{ text: string }>(FOCUSED)).toMatchObject({ text: 'Recover since (UTC)' });
      // The earlier recovery's answer is not left beside this refusal.
      expect(await page.getByText(/being sent again/).count()).toBe(0);
      await page
        .getByRole('region', { name: 'Recover failed deliveries' })
        .screenshot({ path: join(screenshots, 'portal-recover-error.png') });
    } finally {
      page.off('request', onRequest);
    }
    expect(recovers).toEqual([]);
  });

  it('reads its time fields as UTC, the time it shows, in a browser in another time zone', async () => {
    const elsewhere = await newPage(undefined, 'America/Sao_Paulo');
    try {
      const p = elsewhere.page;
      await logIn(p, partner);
      await p.goto(`${t.url}/portal/subscriptions/${subscriptionId}`);
      await heading(p, 'ERP hook v2').waitFor();
      await p.getByLabel('Sent since (UTC)').fill('2026-11-29T22:52');
      const [filtered] = await Promise.all([
        p.waitForRequest((r) => r.url().includes('since=')),
        p.getByRole('button', { name: 'Apply filters' }).click(),
      ]);
      expect(new URL(filtered.url()).searchParams.get('since')).toBe('2026-11-29T22:52:00.000Z');
      await p.getByLabel('Recover since (UTC)').fill('2026-11-29T22:40');
      await p.getByRole('button', { name: 'Recover failed deliveries' }).click();
      await p.getByText('Send again every failed delivery since 2026-11-29 22:40:00 UTC?').waitFor();
    } finally {
      await elsewhere.context.close();
    }
  });

  it('shows health on the list and the page, and recovers everything since it started failing in one step', async () => {
    receiver.behaviour = { status: 500, body: 'down again' };
    const before = (await listed('size=100')).length;
    const codes = [await publish(partner.tenant), await publish(partner.tenant)];
    await waitForDeliveries(t.dataSource, subscriptionId, before + 2, 15_000);
    const { health } = (await api(partner.token).get(`/webhooks/subscriptions/${subscriptionId}`)).body;
    expect(health).toMatchObject({ status: 'FAILING', consecutiveFailures: 2 });

    await page.goto(`${t.url}/portal/subscriptions`);
    const card = page.getByRole('listitem').filter({ hasText: 'ERP hook v2' });
    await card.getByText('Failing (2 failed attempts in a row)').waitFor();
    // The list's health filter: not among the healthy, among the failing.
    await page.getByLabel('Health').selectOption('HEALTHY');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await card.waitFor({ state: 'detached' });
    await page.getByLabel('Health').selectOption('FAILING');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await card.getByText('Failing (2 failed attempts in a row)').waitFor();
    // The filter is in the URL: Back from a subscription comes to the same filtered list.
    expect(new URL(page.url()).searchParams.get('health')).toBe('FAILING');
    await card.getByRole('link', { name: 'ERP hook v2', exact: true }).click();
    await heading(page, 'ERP hook v2').waitFor();
    await page.goBack();
    await card.getByText('Failing (2 failed attempts in a row)').waitFor();
    expect(await page.getByLabel('Health').inputValue()).toBe('FAILING');

    receiver.behaviour = { status: 200 };
    await card.getByRole('link', { name: 'ERP hook v2', exact: true }).click();
    await heading(page, 'ERP hook v2').waitFor();
    const section = page.getByRole('region', { name: 'Health' });
    await section.getByText('Failing (2 failed attempts in a row)').waitFor();
    const failingSince = health.failingSince.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
    expect(await section.locator('dt:text("Failing since") + dd').textContent()).toBe(failingSince);
    await mkdir(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, 'portal-health.png'), fullPage: true });
    const recovers: string[] = [];
    page.on('request', (r) => r.url().endsWith('/recover') && recovers.push(r.postData() ?? ''));
    await section.getByRole('button', { name: 'Recover everything since it started failing' }).click();
    await page.getByRole('button', { name: 'Yes, recover them' }).click();
    await status(page, /^2 failed deliveries are being sent again/).waitFor();
    expect(recovers.map((body) => JSON.parse(body))).toEqual([{ since: health.failingSince }]);

    for (let i = 0; (await listed('trigger=RECOVER&status=SUCCESS')).length < 4; i++) {
      if (i > 100) throw new Error('the recovered deliveries were not recorded');
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const code of codes) {
      const got = receiver.receipts.filter((r) => r.body.licence?.code === code);
      expect(got).toHaveLength(2); // the failed attempt, then the recovery
      expect(got[1].raw).toBe(got[0].raw);
    }
    // The health follows the recovery's records, with no reload.
    await page.getByRole('region', { name: 'Health' }).getByText('Healthy').waitFor({ timeout: UI_TIMEOUT });
  });

  it('reveals the signing secret on request and rotates it after a confirmation', async () => {
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const secret = page.getByLabel('Current signing secret');
    const first = await secret.textContent();
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await secret.textContent()).toBe(first);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotatedAt = Date.now();
    await page.getByRole('button', { name: 'Yes, rotate it' }).click();
    await status(page, /secret was rotated/).waitFor();
    const rotated = await status(page, /secret was rotated/).textContent();
    const until = /keeps signing alongside it until (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC/.exec(rotated ?? '');
    expect({
      rotated,
      overlapMinutes: until && Math.round((Date.parse(`${until[1]}Z`) - rotatedAt) / 60_000),
    }).toEqual({
      rotated,
      overlapMinutes: SECRET_OVERLAP_MS / 60_000,
    });
    const second = await secret.textContent();
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    await page.getByRole('button', { name: 'Hide secret' }).click();
    await page.getByRole('button', { name: 'Reveal secret' }).waitFor();
  });

  it('is usable at 375 px: no horizontal overflow on the list, a subscription with its deliveries, a record', async () => {
    const narrow = await newPage({ width: 375, height: 800 });
    try {
      await logIn(narrow.page, partner);
      const fits = async (name: string) => {
        const width = await narrow.page.evaluate<number>('document.documentElement.scrollWidth');
        await narrow.page.screenshot({ path: join(screenshots, `portal-375-${name}.png`), fullPage: true });
        expect({ name, width: Math.min(width, 376) }).toEqual({ name, width: Math.min(width, 375) });
      };
      await fits('subscriptions');
      await narrow.page.getByRole('link', { name: 'ERP hook v2', exact: true }).click();
      await narrow.page.getByText(/^\d+ deliveries$/).waitFor();
      await fits('deliveries');
      await narrow.page.getByRole('list', { name: 'Deliveries' }).getByRole('link').first().click();
      await heading(narrow.page, /^Delivery/).waitFor();
      await fits('delivery');
    } finally {
      await narrow.context.close();
    }
  });

  it('an administrator switches tenants and sees each one only', async () => {
    const adminPage = await newPage();
    try {
      const p = adminPage.page;
      await logIn(p, admin);
      await p.getByRole('link', { name: 'ERP hook v2', exact: true }).waitFor();
      await p.getByRole('link', { name: 'Other tenant hook', exact: true }).waitFor();
      await p.getByLabel('Tenant (empty: all)').fill(other.tenant);
      await p.getByRole('button', { name: 'Switch tenant' }).click();
      await p.getByText('1 subscription', { exact: true }).waitFor();
      await p.getByRole('link', { name: 'Other tenant hook', exact: true }).waitFor();
      expect(await p.getByRole('link', { name: 'ERP hook v2', exact: true }).count()).toBe(0);
      await p.getByLabel('Tenant (empty: all)').fill(partner.tenant);
      await p.getByRole('button', { name: 'Switch tenant' }).click();
      await p.getByRole('link', { name: 'ERP hook v2', exact: true }).waitFor();
      expect(await p.getByRole('link', { name: 'Other tenant hook', exact: true }).count()).toBe(0);
    } finally {
      await adminPage.context.close();
    }
  });

  it('turns pages by keyboard with the focus kept on the pager, Back returns, and another tenant starts at page 1', async () => {
    const pager = await t.createUser();
    for (let i = 0; i < 21; i++) {
      await t
        .http()
        .post('/webhooks/subscriptions')
        .set('authorization', `Bearer ${pager.token}`)
        .send({
          name: `Paged ${i}`,
          url: receiver.url('/paged'),
          events: [WebhookEvent.LICENCE_CREATED_SUCCESS],
        })
        .expect(200);
    }
    const pagerPage = await newPage();
    try {
      const p = pagerPage.page;
      await logIn(p, pager);
      await p.getByText('21 subscriptions, page 1 of 2').waitFor();
      await p.getByRole('button', { name: 'Next page' }).focus();
      await p.keyboard.press('Enter');
      await p.getByText('21 subscriptions, page 2 of 2').waitFor();
      // Next is disabled on the last page: the focus moved to Previous, not to the page's start.
      expect(await p.evaluate('document.activeElement?.textContent')).toBe('Previous page');
      expect(new URL(p.url()).searchParams.get('page')).toBe('2');
      await p.goBack();
      await p.getByText('21 subscriptions, page 1 of 2').waitFor();
      await p.goForward();
      await p.getByText('21 subscriptions, page 2 of 2').waitFor();

      await p.getByRole('button', { name: 'Log out' }).click();
      await logIn(p, admin);
      await p.goto(`${t.url}/portal/subscriptions?page=2`);
      await p.getByText(/subscriptions, page 2 of /).waitFor();
      await p.getByLabel('Tenant (empty: all)').fill(other.tenant);
      await p.getByRole('button', { name: 'Switch tenant' }).click();
      await p.getByText('1 subscription', { exact: true }).waitFor();
      await p.getByRole('link', { name: 'Other tenant hook', exact: true }).waitFor();
      expect(new URL(p.url()).searchParams.has('page')).toBe(false);
    } finally {
      await pagerPage.context.close();
    }
  });

  it("keeps a subscription's delivery filters and page in its URL: Back, a reload and a link return to them", async () => {
    const owner = await t.createUser();
    const { id } = await createSubscription(t, {
      tenant: owner.tenant,
      url: receiver.url('/paged-deliveries'),
      name: 'Paged deliveries hook',
    });
    for (let i = 0; i < 21; i++) await publish(owner.tenant);
    await t
      .http()
      .post(`/webhooks/subscriptions/${id}/test`)
      .set('authorization', `Bearer ${owner.token}`)
      .send({ eventType: WebhookEvent.LICENCE_CREATED_FAILED })
      .expect(202);
    await waitForDeliveries(t.dataSource, id, 22, 30_000);
    const deliveriesPage = await newPage();
    try {
      const p = deliveriesPage.page;
      const eventType = p.getByLabel('Event type', { exact: true });
      await logIn(p, owner);
      await p.goto(`${t.url}/portal/subscriptions/${id}`);
      await p.getByText('22 deliveries, page 1 of 2').waitFor();
      await eventType.selectOption(WebhookEvent.LICENCE_CREATED_SUCCESS);
      await p.getByRole('button', { name: 'Apply filters' }).click();
      await p.getByText('21 deliveries, page 1 of 2').waitFor();
      await p.getByRole('button', { name: 'Next page' }).click();
      await p.getByText('21 deliveries, page 2 of 2').waitFor();
      expect(Object.fromEntries(new URL(p.url()).searchParams)).toEqual({
        eventType: WebhookEvent.LICENCE_CREATED_SUCCESS,
        page: '2',
      });
      // Back from a record comes to the same page of the same filtered list, and so does a reload.
      await p.getByRole('list', { name: 'Deliveries' }).getByRole('link').first().click();
      await heading(p, /^Delivery \d+$/).waitFor();
      await p.goBack();
      await p.getByText('21 deliveries, page 2 of 2').waitFor();
      expect(await eventType.inputValue()).toBe(WebhookEvent.LICENCE_CREATED_SUCCESS);
      await p.reload();
      await p.getByText('21 deliveries, page 2 of 2').waitFor();
      expect(await eventType.inputValue()).toBe(WebhookEvent.LICENCE_CREATED_SUCCESS);
      // Back again: the first page, then the list before the filter, the form showing each.
      await p.goBack();
      await p.getByText('21 deliveries, page 1 of 2').waitFor();
      await p.goBack();
      await p.getByText('22 deliveries, page 1 of 2').waitFor();
      expect(await eventType.inputValue()).toBe('');
      // A link with filters opens the filtered list, its fields filled in.
      const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16); // an hour ago, UTC
      await p.goto(
        `${t.url}/portal/subscriptions/${id}?eventType=LICENCE_CREATED_FAILED&trigger=TEST&since=${since}`,
      );
      await p.getByText('1 delivery', { exact: true }).waitFor();
      expect(await eventType.inputValue()).toBe(WebhookEvent.LICENCE_CREATED_FAILED);
      expect(await p.getByLabel('Trigger').inputValue()).toBe('TEST');
      expect(await p.getByLabel('Sent since (UTC)').inputValue()).toBe(since);
    } finally {
      await deliveriesPage.context.close();
    }
  });

  it("a partner never sees another tenant's subscription or deliveries", async () => {
    const otherPage = await newPage();
    try {
      const p = otherPage.page;
      // A link to one of its subscriptions, opened before logging in, lands there after the login.
      await p.goto(`${t.url}/portal/subscriptions/${otherSubscriptionId}`);
      await p.getByLabel('E-mail').fill(other.email);
      await p.getByLabel('Password').fill(other.password);
      await p.getByRole('button', { name: 'Log in' }).click();
      await heading(p, 'Other tenant hook').waitFor();
      await p.getByRole('link', { name: 'All subscriptions' }).click();
      await p.getByRole('link', { name: 'Other tenant hook', exact: true }).waitFor();
      expect(await p.getByRole('link', { name: 'ERP hook v2', exact: true }).count()).toBe(0);
      expect(await p.getByLabel('Tenant (empty: all)').count()).toBe(0);
      await p.goto(`${t.url}/portal/subscriptions/${subscriptionId}`);
      await alert(p, /Not found/).waitFor();
      const [record] = await listed('size=1');
      await p.goto(`${t.url}/portal/subscriptions/${subscriptionId}/deliveries/${record.id}`);
      await alert(p, /Not found/).waitFor();
      expect(await p.content()).not.toContain('ERP hook');
    } finally {
      await otherPage.context.close();
    }
  });

  it('explains a 429 with its wait (too many failed logins for one e-mail)', async () => {
    const email = `${uniq('guess')}@example.com`;
    for (let i = 0; i < 10; i++) {
      await t.http().post('/auth/login').send({ email, password: 'not it' }).expect(401);
    }
    const guessing = await newPage();
    try {
      const p = guessing.page;
      await p.goto(`${t.url}/portal/login`);
      await p.getByLabel('E-mail').fill(email);
      await p.getByLabel('Password').fill('not it either');
      await p.getByRole('button', { name: 'Log in' }).click();
      await alert(p, /^Too many requests: wait \d+ seconds? before trying again\.$/).waitFor();
    } finally {
      await guessing.context.close();
    }
  });

  it('explains a 401 (the session ended: a password change) and logs in again', async () => {
    const password = `pw-${uniq('new')}`;
    await t
      .http()
      .patch(`/admin/users/${partner.id}`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ password })
      .expect(200);
    const login = await t.http().post('/auth/login').send({ email: partner.email, password }).expect(200);
    partner = { ...partner, password, token: login.body.token };
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Subscriptions' }).click();
    await heading(page, /Log in/).waitFor();
    await status(page, /Your session has expired: log in again\./).waitFor();
    await page.getByLabel('E-mail').fill(partner.email);
    await page.getByLabel('Password').fill(partner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await heading(page, 'Subscriptions').waitFor();
  });

  it("says on the list what was deleted from a subscription's own page, as a delete from the list does", async () => {
    const { id } = await createSubscription(t, {
      tenant: partner.tenant,
      url: receiver.url('/short-lived'),
      name: 'Short-lived hook',
    });
    await page.goto(`${t.url}/portal/subscriptions/${id}`);
    await heading(page, 'Short-lived hook').waitFor();
    await page.getByRole('button', { name: 'Delete Short-lived hook' }).click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await heading(page, 'Subscriptions').waitFor();
    await status(page, /^Short-lived hook was deleted\.$/).waitFor();
    await page.getByRole('link', { name: 'Short-lived hook', exact: true }).waitFor({ state: 'detached' });
    await api(partner.token).get(`/webhooks/subscriptions/${id}`).expect(404);
    // Said once: a reload of the list does not say it again.
    await page.reload();
    await heading(page, 'Subscriptions').waitFor();
    await page.getByRole('link', { name: 'ERP hook v2', exact: true }).waitFor();
    expect(await page.getByText('Short-lived hook was deleted.').count()).toBe(0);
  });

  it('logs out: the token leaves session storage and was never in a URL; the next login starts afresh', async () => {
    await page.goto(`${t.url}/portal/subscriptions/${subscriptionId}`);
    await heading(page, 'ERP hook v2').waitFor();
    const token = await page.evaluate<string | null>("sessionStorage.getItem('portal.session')");
    expect(token).toBeTruthy();
    const loggedOut = page.waitForRequest((r) => r.method() === 'POST' && r.url() === `${t.url}/auth/logout`);
    await page.getByRole('button', { name: 'Log out' }).click();
    await heading(page, /Log in/).waitFor();
    // The service is told (contract section 8), with the token being forgotten.
    expect((await loggedOut).headers().authorization).toBe(`Bearer ${JSON.parse(token!).token}`);
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    const jwt = JSON.parse(token!).token as string;
    expect(requestedUrls.filter((u) => u.includes(jwt) || /token=/i.test(u))).toEqual([]);
    // A deliberate logout leaves no page behind for whoever logs in next on this tab.
    await page.getByLabel('E-mail').fill(other.email);
    await page.getByLabel('Password').fill(other.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await heading(page, 'Subscriptions').waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await heading(page, /Log in/).waitFor();
    await page.goto(`${t.url}/portal/subscriptions`);
    await heading(page, /Log in/).waitFor();
  });

  it('works with the keyboard alone: log in, create, open, disable and delete with its confirmation', async () => {
    const keys = await newPage();
    const p = keys.page;
    /** Tabs until the focused element's accessible text matches, as a keyboard user would. */
    const tabTo = async (text: RegExp) => {
      for (let i = 0; i < 60; i++) {
        await p.keyboard.press('Tab');
        const focused = await p.evaluate<{ text: string; outline: string }>(FOCUSED);
        if (text.test(focused.text)) {
          expect({ text: focused.text, outline: focused.outline }).not.toMatchObject({ outline: 'none' });
          return;
        }
      }
      throw new Error(`no focusable element matching ${text} by Tab`);
    };
    try {
      await p.goto(`${t.url}/portal/login`);
      await tabTo(/^E-mail$/);
      await p.keyboard.type(partner.email);
      await tabTo(/^Password$/);
      await p.keyboard.type(partner.password);
      await p.keyboard.press('Enter');
      await heading(p, 'Subscriptions').waitFor();
      await tabTo(/^New subscription$/);
      await p.keyboard.press('Enter');
      await heading(p, 'New subscription').waitFor();
      await tabTo(/^Name$/);
      await p.keyboard.type('Keyboard hook');
      await tabTo(/^Receiver URL/);
      await p.keyboard.type(receiver.url('/keys'));
      await tabTo(/^Create subscription$/);
      await p.keyboard.press('Enter');
      await heading(p, 'Keyboard hook').waitFor();
      await tabTo(/^Disable/);
      await p.keyboard.press('Enter');
      await status(p, /Keyboard hook is now disabled/).waitFor();
      await tabTo(/^Delete Keyboard hook$/);
      await p.keyboard.press('Enter');
      // The dialog has the focus: Tab stays inside it, Enter confirms.
      await p.getByRole('button', { name: 'Yes, delete it' }).waitFor();
      expect(await p.evaluate<string>('document.activeElement.textContent')).toBe('Yes, delete it');
      await p.keyboard.press('Enter');
      await heading(p, 'Subscriptions').waitFor();
      await p.getByText(/^\d+ subscriptions?$/).waitFor();
      expect(await p.getByRole('link', { name: 'Keyboard hook', exact: true }).count()).toBe(0);
      expect(
        await api(partner.token)
          .get('/webhooks/subscriptions?index=Keyboard')
          .then((r) => r.body.totalElements),
      ).toBe(0);
    } finally {
      await keys.context.close();
    }
  });

  it('printed no console error and no uncaught page error along the way', () => {
    expect(consoleErrors).toEqual([]);
  });
});
