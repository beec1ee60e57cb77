import { afterEach, describe, expect, it, vi } from 'vitest';
import { request } from '../support/api.ts';
import { createSender } from './support.ts';
import { db } from '#shared/platform/dynamodb/client.ts';
import { createTemplate } from '../support/arrange.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a templated send to many recipients', () => {
  it('reads the template once, not once per recipient', async () => {
    const sender = await createSender();
    const template = await createTemplate(sender.key, { name: 'Digest', subject: 'Hi {{name}}', components: [{ type: 'text', content: 'Hello {{name}}' }] });
    const recipients = Array.from({ length: 10 }, (_, index) => `reader${index}@${sender.domain}`);
    const sent = vi.spyOn(db, 'send');

    const response = await request('POST', '/api/email/send', {
      key: sender.testKey,
      body: { from: sender.from, recipients, templateId: template.id, variables: { name: 'Ann' } },
    });

    expect(response.status).toBe(200);
    expect(response.body.successfulEmails).toHaveLength(10);
    // A GetItem of the template, or a BatchGetItem naming it among other keys (the send's one batch read).
    const templateReads = sent.mock.calls.filter(([command]) => {
      const input = (command as { input?: { Key?: { pk?: string }; RequestItems?: Record<string, { Keys?: { pk?: string }[] }> } }).input;
      const keys = [input?.Key, ...Object.values(input?.RequestItems ?? {}).flatMap((request) => request.Keys ?? [])];
      return keys.some((key) => typeof key?.pk === 'string' && key.pk.endsWith('#TPLFULL'));
    });
    expect(templateReads).toHaveLength(1);
  });
});
