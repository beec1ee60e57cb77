/**
 * Stands in for `@aws-sdk/credential-provider-node` in the function bundles
 * (an esbuild alias in lib/bundling.ts); the local server and the tests keep
 * the real one.
 *
 * Lambda gives every function its role's credentials in environment variables.
 * The SDK's default chain also carries SSO, shared ini files, credential
 * processes, web identity and instance metadata, with the STS and SSO clients
 * they bring: about 130 KB of every bundle that never runs in Lambda, and
 * about 10 ms of every cold start (bench/results/latest.md). Container
 * credentials (`AWS_CONTAINER_CREDENTIALS_*`) are kept for runtimes that serve
 * them over HTTP instead.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { fromHttp } from '@aws-sdk/credential-provider-http';

type ProviderInit = Parameters<typeof fromEnv>[0] & Parameters<typeof fromHttp>[0];

/** The name and shape the SDK clients import from `@aws-sdk/credential-provider-node`. */
export const defaultProvider = (init: ProviderInit = {}) =>
  process.env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI ? fromHttp(init) : fromEnv(init);
