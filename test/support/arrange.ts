/**
 * Arrange steps many tests share, made through the API as a client would:
 * an account with an audience, a stored template. Each answers what the
 * tests go on with and fails the test at once when the API refuses. Also
 * the checks of refusals: a whole error envelope, and refused updates that
 * change nothing.
 */
import { expect } from 'vitest';
import { createTestAccount, type TestAccount } from './accounts.ts';
import { request } from './api.ts';
import type { Template } from '#shared/templates/service.ts';

/** A new audience of the key's account: its id. */
export async function createAudience(key: string, name = 'Audience'): Promise<string> {
  const response = await request('POST', '/api/audiences', { key, body: { name } });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

/** A fresh account (as `createTestAccount`) with one empty audience: `const { key, audienceId } = await accountWithAudience('Main')`. */
export async function accountWithAudience(name?: string, options: Parameters<typeof createTestAccount>[0] = {}): Promise<TestAccount & { audienceId: string }> {
  const account = await createTestAccount(options);
  return { ...account, audienceId: await createAudience(account.key, name) };
}

/** A stored template of the key's account, as POST /api/templates answers it in `data`. */
export async function createTemplate(key: string, body: Record<string, unknown>): Promise<Template> {
  const response = await request('POST', '/api/templates', { key, body });
  expect(response.status).toBe(201);
  return response.body.data;
}

/** The response is 201 with exactly this resource as `data`. */
export function expectCreated(response: { status: number; body: unknown }, data: Record<string, unknown>): void {
  expect(response.status).toBe(201);
  expect(response.body).toEqual({ success: true, data });
}

/** The response is `status` with exactly this error envelope (`success: false` and the fields given). */
export function expectErrorReply(response: { status: number; body: unknown }, status: number, envelope: Record<string, unknown>): void {
  expect(response.status).toBe(status);
  expect(response.body).toEqual({ success: false, ...envelope });
}

/** A PATCH body, and the status, error code and `field` it must be refused with. */
export type RefusedUpdate = readonly [body: Record<string, unknown>, status: number, error: string, field: string];

/**
 * Sends each body to `path` as a PATCH and expects it refused as given; a
 * refused update changes nothing, so the resource then reads back as `unchanged`.
 */
export async function expectUpdatesRefused(key: string, path: string, unchanged: unknown, refusals: readonly RefusedUpdate[]): Promise<void> {
  for (const [body, status, error, field] of refusals) {
    const response = await request('PATCH', path, { key, body });
    expect([response.status, response.body]).toMatchObject([status, { success: false, error, field }]);
  }
  expect((await request('GET', path, { key })).body.data).toEqual(unchanged);
}
