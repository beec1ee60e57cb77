/** How a documented example and a real reply are compared (test/docs/examples.test.ts, test/docs/event-examples.ts). */
import { expect } from 'vitest';

/**
 * Same keys at every level; `success`, `error`, booleans and null exactly; other values by type.
 * Arrays: empty exactly when documented empty, and the first item shaped as the documented first.
 */
export function expectShape(actual: unknown, documented: unknown, where: string): void {
  if (Array.isArray(documented)) {
    expect(Array.isArray(actual), `${where}: an array`).toBe(true);
    const items = actual as unknown[];
    expect(items.length === 0, `${where}: ${documented.length === 0 ? 'empty' : 'not empty'}`).toBe(documented.length === 0);
    if (documented.length > 0) expectShape(items[0], documented[0], `${where}[0]`);
    return;
  }
  if (documented !== null && typeof documented === 'object') {
    expect(actual !== null && typeof actual === 'object' && !Array.isArray(actual), `${where}: an object`).toBe(true);
    expect(Object.keys(actual as object).sort(), `${where}: keys`).toEqual(Object.keys(documented).sort());
    for (const [key, value] of Object.entries(documented)) {
      const inner = (actual as Record<string, unknown>)[key];
      if (key === 'success' || key === 'error') expect(inner, `${where}.${key}`).toEqual(value);
      else expectShape(inner, value, `${where}.${key}`);
    }
    return;
  }
  if (documented === null || typeof documented === 'boolean') expect(actual, where).toBe(documented);
  else expect(typeof actual, `${where}: type`).toBe(typeof documented);
}
