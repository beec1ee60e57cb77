/**
 * `configureFile` (test/support/worker.ts): a setting of one file's own holds
 * in the environment and in the loaded configuration while that file runs,
 * and the worker's next file gets the one it started with. Called inside a
 * describe block, its hooks are that block's, so the test after it plays the
 * next file.
 */
import { describe, expect, it } from 'vitest';
import { config } from '#shared/platform/config.ts';
import { configureFile } from './worker.ts';

const before = { environment: process.env.RETRY_BACKOFF_SECONDS, configured: config.RETRY_BACKOFF_SECONDS };

describe('a setting of the file’s own', () => {
  configureFile({ RETRY_BACKOFF_SECONDS: '3' });

  it('holds in the environment, which the admin CLI inherits, and in the configuration the code reads', () => {
    expect(process.env.RETRY_BACKOFF_SECONDS).toBe('3');
    expect(config.RETRY_BACKOFF_SECONDS).toBe(3);
  });
});

it('is gone once its file ends: the next file has the setting the worker started with', () => {
  expect(before.configured).not.toBe(3);
  expect(process.env.RETRY_BACKOFF_SECONDS).toBe(before.environment);
  expect(config.RETRY_BACKOFF_SECONDS).toBe(before.configured);
});
