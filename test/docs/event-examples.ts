/**
 * The event catalogue's payload examples in docs/webhooks.md (```text event
 * blocks: JSON of one event each), held against real events by the tests that
 * produce them (test/webhooks/end-to-end.test.ts): the same keys at every
 * level, nulls and booleans exactly, other values by type (./shape.ts).
 */
import { expect } from 'vitest';
import { fencedBlocks } from './markdown.ts';
import { expectShape } from './shape.ts';

export const CATALOGUE = 'docs/webhooks.md';

export interface DocumentedEvent {
  where: string;
  type: string;
  example: { type: string; data: Record<string, unknown> };
}

export function documentedEvents(): DocumentedEvent[] {
  return fencedBlocks(CATALOGUE)
    .filter((block) => block.info[0] === 'text' && block.info.includes('event'))
    .map((block) => {
      const example = JSON.parse(block.text) as DocumentedEvent['example'];
      return { where: `${CATALOGUE}:${block.line}`, type: example.type, example };
    });
}

const matched = new Set<string>();

/**
 * Fails unless the event has the shape of one of the documented examples of
 * its type (a type may have several: a contact's unsubscribe and an address's).
 */
export function expectDocumentedEvent(event: { type: string }): void {
  const candidates = documentedEvents().filter((documented) => documented.type === event.type);
  expect(candidates, `${CATALOGUE} documents ${event.type}`).not.toEqual([]);
  const failures: string[] = [];
  for (const documented of candidates) {
    try {
      expectShape(event, documented.example, documented.where);
      matched.add(documented.where);
      return;
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  expect.fail(`${event.type} ${JSON.stringify(event)} matches no documented example:\n${failures.join('\n')}`);
}

/** The examples no event has matched yet in this test file. */
export function unmatchedExamples(): string[] {
  return documentedEvents()
    .filter((documented) => !matched.has(documented.where))
    .map((documented) => `${documented.where} ${documented.type}`);
}
