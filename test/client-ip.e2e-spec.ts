import { randomBytes, randomInt } from 'node:crypto';
import http from 'node:http';
import { startTestApp, TestApp } from './support/test-app';

/**
 * TRUST_PROXY (contract section 8, Client IP), seen through the login limit (2 a minute per
 * client): two logins as one client, and a third is 429 exactly when the service takes it for the
 * same client. Every address is random, so runs sharing a Redis never meet.
 */
const byte = () => randomInt(256);
const publicIp = () => `198.51.${byte()}.${1 + randomInt(254)}`;
const proxyIp = () => `192.0.2.${1 + randomInt(254)}`;
/** A loopback address to connect from (127.0.0.0/8 is all local on Linux). */
const loopback = () => `127.${1 + randomInt(254)}.${byte()}.${1 + randomInt(254)}`;
const ipv6Prefix = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

interface From {
  /** The connection's source address (the socket address the service sees). */
  socket: string;
  forwardedFor?: string;
}

/** One failed login (an unknown e-mail of its own, so only the per-IP limit applies): its status. */
function login(t: TestApp, from: From): Promise<number> {
  const body = JSON.stringify({
    email: `nobody-${randomBytes(6).toString('hex')}@example.com`,
    password: 'x',
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${t.url}/auth/login`,
      {
        method: 'POST',
        localAddress: from.socket,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(from.forwardedFor === undefined ? {} : { 'x-forwarded-for': from.forwardedFor }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Whether `third` counts as the client that sent `first` and `second` (it is then 429). */
async function sameClient(t: TestApp, first: From, second: From, third: From): Promise<boolean> {
  expect(await login(t, first)).toBe(401);
  expect(await login(t, second)).toBe(401);
  const status = await login(t, third);
  expect([401, 429]).toContain(status);
  return status === 429;
}

function withApp(trustProxy: string, body: (app: () => TestApp) => void) {
  describe(`TRUST_PROXY=${trustProxy}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({
        TRUST_PROXY: trustProxy,
        RATE_LIMIT_LOGIN_PER_MINUTE: '2',
        RATE_LIMIT_API_PER_MINUTE: '1000',
      });
    });
    afterAll(async () => {
      await t?.close();
    });
    body(() => t);
  });
}

describe('client IP (contract section 8)', () => {
  withApp('false', (app) => {
    it('is the socket address, whatever X-Forwarded-For says', async () => {
      const socket = loopback();
      expect(
        await sameClient(
          app(),
          { socket, forwardedFor: publicIp() },
          { socket, forwardedFor: publicIp() },
          { socket, forwardedFor: publicIp() },
        ),
      ).toBe(true);
      const client = publicIp();
      expect(
        await sameClient(
          app(),
          { socket: loopback(), forwardedFor: client },
          { socket: loopback(), forwardedFor: client },
          { socket: loopback(), forwardedFor: client },
        ),
      ).toBe(false);
    });
  });

  withApp('true', (app) => {
    it('is the left-most X-Forwarded-For address (every hop trusted)', async () => {
      const client = publicIp();
      expect(
        await sameClient(
          app(),
          { socket: loopback(), forwardedFor: `${client}, ${proxyIp()}` },
          { socket: loopback(), forwardedFor: `${client}, ${proxyIp()}` },
          { socket: loopback(), forwardedFor: `${client}, ${proxyIp()}, ${proxyIp()}` },
        ),
      ).toBe(true);
    });

    it('counts an IPv6 client by its /64', async () => {
      const prefix = ipv6Prefix();
      expect(
        await sameClient(
          app(),
          { socket: loopback(), forwardedFor: `${prefix}::1` },
          { socket: loopback(), forwardedFor: `${prefix}:1:2:3:4` },
          { socket: loopback(), forwardedFor: `${prefix}:ffff::9` },
        ),
      ).toBe(true);
      const other = ipv6Prefix();
      expect(
        await sameClient(
          app(),
          { socket: loopback(), forwardedFor: `${other}::1` },
          { socket: loopback(), forwardedFor: `${other}::2` },
          { socket: loopback(), forwardedFor: `${ipv6Prefix()}::1` },
        ),
      ).toBe(false);
    });
  });

  withApp('1', (app) => {
    it('is the address the nearest proxy saw: a spoofed left-most entry changes nothing', async () => {
      const client = publicIp();
      expect(
        await sameClient(
          app(),
          { socket: loopback(), forwardedFor: `${publicIp()}, ${client}` },
          { socket: loopback(), forwardedFor: `${publicIp()}, ${publicIp()}, ${client}` },
          { socket: loopback(), forwardedFor: client },
        ),
      ).toBe(true);
    });

    it('tells apart two clients behind the proxy even with the same left-most entry', async () => {
      const spoofed = publicIp();
      expect(
        await sameClient(
          app(),
          { socket: loopback(), forwardedFor: `${spoofed}, ${publicIp()}` },
          { socket: loopback(), forwardedFor: `${spoofed}, ${publicIp()}` },
          { socket: loopback(), forwardedFor: `${spoofed}, ${publicIp()}` },
        ),
      ).toBe(false);
    });
  });

  withApp('2', (app) => {
    it('is the address the second proxy saw', async () => {
      const client = publicIp();
      expect(
        await sameClient(
          app(),
          { socket: loopback(), forwardedFor: `${publicIp()}, ${client}, ${proxyIp()}` },
          { socket: loopback(), forwardedFor: `${client}, ${proxyIp()}` },
          { socket: loopback(), forwardedFor: `${publicIp()}, ${publicIp()}, ${client}, ${proxyIp()}` },
        ),
      ).toBe(true);
    });
  });

  withApp('127.0.0.0/9, 192.0.2.0/24', (app) => {
    it('is the right-most address that is not a trusted proxy', async () => {
      const client = publicIp();
      expect(
        await sameClient(
          app(),
          { socket: '127.0.0.2', forwardedFor: `${publicIp()}, ${client}, ${proxyIp()}` },
          { socket: '127.0.0.3', forwardedFor: `${client}, ${proxyIp()}, ${proxyIp()}` },
          { socket: '127.0.0.4', forwardedFor: `${publicIp()}, ${client}` },
        ),
      ).toBe(true);
    });

    it('believes no X-Forwarded-For from a socket address outside the list', async () => {
      // 127.128.0.0/9 is loopback but not in 127.0.0.0/9: such a peer is the client itself.
      const socket = `127.${128 + randomInt(127)}.${byte()}.${1 + randomInt(254)}`;
      expect(
        await sameClient(
          app(),
          { socket, forwardedFor: publicIp() },
          { socket, forwardedFor: publicIp() },
          { socket, forwardedFor: publicIp() },
        ),
      ).toBe(true);
    });
  });
});
