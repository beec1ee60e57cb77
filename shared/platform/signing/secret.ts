/**
 * The key that signs unsubscribe and preference links. Where it comes from
 * depends on where the code runs, behind one small interface:
 *
 * - `SIGNING_SECRET` set: that value (tests, local runs that want a fixed key);
 * - `SIGNING_SECRET_PARAMETER` set: the Secrets Manager secret of that name,
 *   read once per cold start (deployed; the key never sits in the environment);
 * - neither, with a local DynamoDB (`DYNAMODB_ENDPOINT`): a random key stored
 *   once in the table, so every local process agrees and links survive restarts;
 * - neither, in AWS: an error. There is no built-in fallback key, because
 *   anyone who knew it could unsubscribe every contact of every deployment.
 */
import { randomBytes } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config, type Config } from '#shared/platform/config.ts';
import { storeLocalSigningSecret } from './secret-store.ts';

export interface SigningSecretSource {
  /** Where the key comes from, for error messages (never the key itself). */
  readonly description: string;
  load(): Promise<Buffer>;
}

/** A key given as text (`SIGNING_SECRET`). */
export function secretFromValue(value: string): SigningSecretSource {
  return { description: 'SIGNING_SECRET', load: async () => Buffer.from(value, 'utf8') };
}

/** The text of a Secrets Manager secret in the configured region. */
export function secretsManagerSecret(secretId: string, client?: Pick<SecretsManagerClient, 'send'>): SigningSecretSource {
  return {
    description: `Secrets Manager secret ${secretId}`,
    async load() {
      // The one command by name: `import()` of the package would bundle every operation it has.
      const secrets = client ?? new SecretsManagerClient({ region: config.AWS_REGION });
      const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
      if (!SecretString || SecretString.length < 32) throw new Error(`Secrets Manager secret ${secretId} must hold text of at least 32 characters`);
      return Buffer.from(SecretString, 'utf8');
    },
  };
}

/** A random key kept in the local table; the first process to ask creates it. */
export const localTableSecret: SigningSecretSource = {
  description: 'the local table',
  load: async () => Buffer.from(await storeLocalSigningSecret(randomBytes(32).toString('base64url')), 'utf8'),
};

/** The source the configuration calls for (see the module comment for the order). */
export function configuredSource(settings: Pick<Config, 'SIGNING_SECRET' | 'SIGNING_SECRET_PARAMETER' | 'DYNAMODB_ENDPOINT'> = config): SigningSecretSource {
  if (settings.SIGNING_SECRET) return secretFromValue(settings.SIGNING_SECRET);
  if (settings.SIGNING_SECRET_PARAMETER) return secretsManagerSecret(settings.SIGNING_SECRET_PARAMETER);
  if (settings.DYNAMODB_ENDPOINT) return localTableSecret;
  throw new Error('No link-signing key: set SIGNING_SECRET_PARAMETER to the name of a Secrets Manager secret (the CDK stack does)');
}

let loaded: Promise<Buffer> | undefined;

/** The configured key, loaded once per process (a Lambda cold start); a failed load is retried on the next call. */
export function signingSecret(): Promise<Buffer> {
  loaded ??= Promise.resolve()
    .then(() => configuredSource().load())
    .catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
  return loaded;
}
