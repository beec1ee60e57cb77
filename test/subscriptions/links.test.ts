import { createHmac, randomBytes } from 'node:crypto';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readSubscriptionToken, signSubscriptionToken, subscriptionLinks, verifySubscriptionToken } from '#shared/sending/subscription-links.ts';
import { configuredSource, localTableSecret, secretsManagerSecret, signingSecret } from '#shared/platform/signing/secret.ts';
import { storeLocalSigningSecret } from '#shared/platform/signing/secret-store.ts';

const ACCOUNT = 'acc_0WdAbCdEfGhIjKlMnOpQ';
const OTHER_ACCOUNT = 'acc_0WdZyXwVuTsRqPoNmLkJ';
const BROADCAST = 'bro_0WdAbCdEfGhIjKlMnOpQ';
const key = randomBytes(32);
const at = new Date('2026-11-21T10:00:00Z');

/** The token of a link: everything after the last slash. */
function tokenOf(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The last character of a 32-byte base64url value carries 2 unused bits: flipping one leaves the bytes the same. */
function spareBitFlipped(char: string): string {
  return BASE64URL_ALPHABET[BASE64URL_ALPHABET.indexOf(char) ^ 1]!;
}

/** Base64url text with one character changed, still valid base64url. */
function flipOne(text: string, index: number): string {
  return text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);
}

describe('subscription tokens', () => {
  it('carry the account, the normalised address and the issue time', () => {
    const token = signSubscriptionToken(key, ACCOUNT, '  Ana.Silva@Example.COM ', at);

    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(readSubscriptionToken(key, token)).toEqual({ accountId: ACCOUNT, email: 'ana.silva@example.com', issuedAt: at });
  });

  it('refuse any change to the payload, the mac or the key', () => {
    const token = signSubscriptionToken(key, ACCOUNT, 'ana@example.com', at);
    const [payload, mac] = token.split('.') as [string, string];
    const otherAddress = Buffer.from([ACCOUNT, at.getTime() / 1000, 'bob@example.com'].join('\n')).toString('base64url');
    const otherAccount = Buffer.from([OTHER_ACCOUNT, at.getTime() / 1000, 'ana@example.com'].join('\n')).toString('base64url');

    const forged = [
      `${otherAddress}.${mac}`,
      `${otherAccount}.${mac}`,
      `${flipOne(payload, 3)}.${mac}`,
      `${payload}.${flipOne(mac, 10)}`,
      `${payload}.${mac.slice(0, -1)}`,
      `${payload}.${mac}.${mac}`,
      `${payload}${mac}`,
      payload,
      '',
      '.',
      'not a token at all',
      `${payload}.${mac}=`,
      `${payload}x.${mac}`,
      `${payload}.${mac.slice(0, -1)}${spareBitFlipped(mac.at(-1)!)}`,
      `${'A'.repeat(600)}.${mac}`,
    ];

    expect(forged.map((candidate) => readSubscriptionToken(key, candidate))).toEqual(forged.map(() => undefined));
    expect(readSubscriptionToken(randomBytes(32), token)).toBeUndefined();
  });

  it('refuse a well-signed payload that does not name an account and an address', () => {
    // Signed as the format says, with the real key: only a bug on our side could produce these.
    const signed = (payload: string) =>
      `${Buffer.from(payload).toString('base64url')}.${createHmac('sha256', key).update('postlane/subscription-link/v1\n').update(payload).digest('base64url')}`;

    expect(readSubscriptionToken(key, signed([ACCOUNT, 1_790_000_000, 'ana@example.com'].join('\n')))).toMatchObject({ email: 'ana@example.com' });
    expect(readSubscriptionToken(key, signed('garbage'))).toBeUndefined();
    expect(readSubscriptionToken(key, signed([ACCOUNT, 'soon', 'ana@example.com'].join('\n')))).toBeUndefined();
    expect(readSubscriptionToken(key, signed(['acc_short', 1_790_000_000, 'ana@example.com'].join('\n')))).toBeUndefined();
    expect(readSubscriptionToken(key, signed([ACCOUNT, 1_790_000_000, 'not an address'].join('\n')))).toBeUndefined();
    expect(readSubscriptionToken(key, signed([ACCOUNT, 1_790_000_000, 'ana@example.com', 'aud_0WdAbCdEfGhIjKlMnOpQ'].join('\n')))).toBeUndefined();
    expect(readSubscriptionToken(key, signed([ACCOUNT, 1_790_000_000, 'ana@example.com', BROADCAST, 'more'].join('\n')))).toBeUndefined();
  });

  it("carry a broadcast's id under the same mac, and read links made before it as before", () => {
    const token = signSubscriptionToken(key, ACCOUNT, 'ana@example.com', at, BROADCAST);
    expect(readSubscriptionToken(key, token)).toEqual({ accountId: ACCOUNT, email: 'ana@example.com', issuedAt: at, broadcastId: BROADCAST });
    // The format of links already in inboxes, signed byte for byte as they were.
    const before = [ACCOUNT, at.getTime() / 1000, 'ana@example.com'].join('\n');
    const old = `${Buffer.from(before).toString('base64url')}.${createHmac('sha256', key).update('postlane/subscription-link/v1\n').update(before).digest('base64url')}`;
    expect(readSubscriptionToken(key, old)).toEqual({ accountId: ACCOUNT, email: 'ana@example.com', issuedAt: at });
    // Neither adding, dropping nor swapping the broadcast keeps the mac.
    const mac = token.split('.')[1]!;
    const [oldPayload, oldMac] = old.split('.') as [string, string];
    const swapped = Buffer.from(`${before}\nbro_0WdZyXwVuTsRqPoNmLkJ`).toString('base64url');
    for (const forged of [`${oldPayload}.${mac}`, `${token.split('.')[0]}.${oldMac}`, `${swapped}.${mac}`])
      expect(readSubscriptionToken(key, forged)).toBeUndefined();
  });
});

describe('subscriptionLinks', () => {
  it('gives unsubscribe, preference and one-click links on the configured public base URL', async () => {
    const links = await subscriptionLinks(ACCOUNT, 'Ana@Example.com');

    expect(links.unsubscribeUrl.startsWith(`${process.env.PUBLIC_BASE_URL}/unsubscribe/`)).toBe(true);
    expect(links.unsubscribeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/unsubscribe\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(links.preferencesUrl).toBe(links.unsubscribeUrl.replace('/unsubscribe/', '/preferences/'));
    expect(links.oneClickUrl).toBe(links.unsubscribeUrl);
    expect(await verifySubscriptionToken(tokenOf(links.unsubscribeUrl))).toMatchObject({ accountId: ACCOUNT, email: 'ana@example.com' });
  });

  describe('with PUBLIC_BASE_URL', () => {
    afterEach(() => {
      vi.unstubAllEnvs();
      vi.resetModules();
    });

    it('point at the custom domain instead, keeping its path', async () => {
      vi.stubEnv('PUBLIC_BASE_URL', 'https://mail.example.com/postlane/');
      vi.resetModules();
      const fresh = await import('#shared/sending/subscription-links.ts');

      const links = await fresh.subscriptionLinks(ACCOUNT, 'ana@example.com');

      expect(links.unsubscribeUrl).toMatch(/^https:\/\/mail\.example\.com\/postlane\/unsubscribe\/[^/]+$/);
      expect(links.preferencesUrl).toMatch(/^https:\/\/mail\.example\.com\/postlane\/preferences\/[^/]+$/);
    });
  });
});

describe('the signing key', () => {
  it('comes from SIGNING_SECRET, else the named Secrets Manager secret, else the local table, and never from nowhere', () => {
    const secret = 'x'.repeat(40);
    expect(
      configuredSource({ SIGNING_SECRET: secret, SIGNING_SECRET_PARAMETER: 'postlane/link-signing', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).description,
    ).toBe('SIGNING_SECRET');
    expect(configuredSource({ SIGNING_SECRET_PARAMETER: 'postlane/link-signing', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).description).toBe(
      'Secrets Manager secret postlane/link-signing',
    );
    expect(configuredSource({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toBe(localTableSecret);
    expect(() => configuredSource({})).toThrow(/SIGNING_SECRET_PARAMETER/);
  });

  it('is read from Secrets Manager by name', async () => {
    const asked: unknown[] = [];
    const client = {
      send: (async (command: { input: unknown }) => {
        asked.push(command.input);
        return { SecretString: 'k'.repeat(64) };
      }) as unknown as SecretsManagerClient['send'],
    };

    const loaded = await secretsManagerSecret('postlane/link-signing', client).load();

    expect(asked).toEqual([{ SecretId: 'postlane/link-signing' }]);
    expect(loaded.toString()).toBe('k'.repeat(64));
  });

  it('refuses a Secrets Manager secret too short to be a key', async () => {
    const client = { send: (async () => ({ SecretString: 'short' })) as unknown as SecretsManagerClient['send'] };
    await expect(secretsManagerSecret('postlane/link-signing', client).load()).rejects.toThrow(/at least 32 characters/);
  });

  it('is one key in the local table, whichever process asks first', async () => {
    const stored = await Promise.all(Array.from({ length: 8 }, () => storeLocalSigningSecret(randomBytes(32).toString('base64url'))));

    expect(new Set(stored).size).toBe(1);
    expect((await localTableSecret.load()).toString()).toBe(stored[0]);
    expect((await signingSecret()).toString()).toBe(stored[0]);
  });
});
