/**
 * Operator commands: `npm run --silent admin -- <command> [--flag value]...`.
 * Each prints one JSON object on stdout and exits 0, or one line on stderr and
 * exits 1 (2 for a malformed command line). The commands and their output are
 * promised to scripts and people alike (README.md, "Admin CLI"), so they stay as documented there.
 *
 * Talks to the local stack unless AWS_REGION and TABLE_NAME are set without
 * DYNAMODB_ENDPOINT: then to that deployed table, and to SES for domain status.
 */
// Lambda runs Node 22+; on the Node 20 of these machines the SDK's warning would break the one-line stderr promise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const deployed = !process.env.DYNAMODB_ENDPOINT && Boolean(process.env.AWS_REGION) && Boolean(process.env.TABLE_NAME);
if (!deployed) process.env.DYNAMODB_ENDPOINT ||= `http://127.0.0.1:${process.env.DYNAMODB_PORT || 8000}`;

class UsageError extends Error {}

type Flags = Record<string, string>;

interface Command {
  /** What it does, for `--help`. */
  summary: string;
  /** Flag names; the required ones end in `!`. */
  flags: string[];
  run(flags: Flags): Promise<object>;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}; got "${value}"`);
  return value as T;
}

/** `--quota N`: a whole number of emails per month; `or` names what else the command's flag takes. */
function quota(value: string, or = ''): number {
  if (!/^\d{1,12}$/.test(value)) throw new UsageError(`--quota must be a whole number of emails per month${or}; got "${value}"`);
  return Number(value);
}

/** `--rate`: messages per second, a positive number with up to three decimals, or `none` to remove the limit. */
function sendRate(value: string): number | undefined {
  if (value === 'none') return undefined;
  const rate = Number(value);
  if (!/^\d{1,6}(\.\d{1,3})?$/.test(value) || rate <= 0)
    throw new UsageError(`--rate must be a positive number of messages per second (such as 10 or 0.5), or none; got "${value}"`);
  return rate;
}

// Loaded after DYNAMODB_ENDPOINT is settled: shared/platform/config.ts reads it once, on import.
const [
  { awsConnection, config },
  { PLANS },
  accounts,
  apiKeys,
  keys,
  { getAccount },
  verification,
  { isDomainName },
  deadLetters,
  { SQSClient },
  { NotFoundError },
] = await Promise.all([
  import('#shared/platform/config.ts'),
  import('#shared/accounts/plans.ts'),
  import('#shared/accounts/service.ts'),
  import('#shared/accounts/api-keys.ts'),
  import('#shared/accounts/key-management.ts'),
  import('#shared/accounts/store.ts'),
  import('#shared/domains/verification.ts'),
  import('#shared/domains/schema.ts'),
  import('#shared/feedback/dead-letters.ts'),
  import('@aws-sdk/client-sqs'),
  import('#shared/platform/errors.ts'),
]);

async function existingAccount(accountId: string): Promise<string> {
  if (!(await getAccount(accountId, { consistent: true }))) throw new Error(`Unknown account ${accountId}`);
  return accountId;
}

/** Disables or revokes a key as the operator, with its audit event; a revoked key is as unknown as a missing one. */
async function restrict(flags: Flags, action: 'disable' | 'revoke'): Promise<object> {
  const accountId = await existingAccount(flags.account!);
  const operator = keys.operatorOf(accountId);
  try {
    if (action === 'disable') await keys.updateKey(operator, flags.id!, { disabled: true }, new Date());
    else await keys.revokeKey(operator, flags.id!, new Date());
  } catch (error) {
    if (error instanceof NotFoundError) throw new Error(`Unknown key ${flags.id} for account ${accountId}`);
    throw error;
  }
  return action === 'disable' ? { id: flags.id, disabled: true } : { id: flags.id, revoked: true };
}

/**
 * `--queue`: a dead-letter queue's URL, as the stack's outputs and `npm start`
 * print them. Locally the stand-in's address is in the URL itself.
 */
function queueUrlFlag(flags: Flags, flag: 'queue' | 'to'): string {
  const queueUrl = flags[flag]!;
  if (!URL.canParse(queueUrl) || !/^https?:$/.test(new URL(queueUrl).protocol))
    throw new UsageError(`--${flag} must be a queue URL such as https://sqs.us-east-1.amazonaws.com/123456789012/name; got "${queueUrl}"`);
  return queueUrl;
}

/** The client and URL of the dead-letter queue `--queue` names, as the dead-letter commands take them. */
function deadLetterQueue(flags: Flags): [InstanceType<typeof SQSClient>, string] {
  const queueUrl = queueUrlFlag(flags, 'queue');
  return [new SQSClient({ ...awsConnection(deployed ? undefined : new URL(queueUrl).origin), maxAttempts: 3 }), queueUrl];
}

const COMMANDS: Record<string, Command> = {
  'account create': {
    summary: 'creates an account; prints its id',
    flags: ['plan', 'quota', 'name', 'region'],
    run: (flags) =>
      accounts.createAccount({
        plan: oneOf('plan', flags.plan ?? 'free', PLANS),
        quota: flags.quota === undefined ? undefined : quota(flags.quota),
        name: flags.name,
        ...(flags.region === undefined ? {} : { region: flags.region }),
      }),
  },
  'account move': {
    summary: "makes another region the account's home (after a region outage, or on request)",
    flags: ['account!', 'region!'],
    run: async (flags) => {
      const moved = await accounts.moveAccount(flags.account!, flags.region!);
      if (!moved) throw new Error(`Unknown account ${flags.account}`);
      return moved;
    },
  },
  'account show': {
    summary: 'plan, quota and usage of an account',
    flags: ['account!'],
    run: async (flags) => {
      const summary = await accounts.showAccount(flags.account!);
      if (!summary) throw new Error(`Unknown account ${flags.account}`);
      return summary;
    },
  },
  'account update': {
    summary: "changes the plan, the quota (--quota plan: the plan's), or both; every key follows from its next request; prints what account show prints",
    flags: ['account!', 'plan', 'quota'],
    run: async (flags) => {
      if (flags.plan === undefined && flags.quota === undefined) throw new UsageError('account update needs --plan or --quota (or both)');
      const updated = await accounts.updateAccount(flags.account!, {
        ...(flags.plan === undefined ? {} : { plan: oneOf('plan', flags.plan, PLANS) }),
        ...(flags.quota === undefined ? {} : { quota: flags.quota === 'plan' ? 'plan' : quota(flags.quota, ", or plan for the plan's own") }),
      });
      if (!updated) throw new Error(`Unknown account ${flags.account}`);
      return updated;
    },
  },
  'account set-send-rate': {
    summary: "caps the messages per second of the account's broadcasts (--rate none removes the cap)",
    flags: ['account!', 'rate!'],
    run: async (flags) => {
      const set = await accounts.setSendRate(flags.account!, sendRate(flags.rate!));
      if (!set) throw new Error(`Unknown account ${flags.account}`);
      return set;
    },
  },
  'key create': {
    summary: 'creates an API key; prints its secret, the only time it is shown',
    flags: ['account!', 'env', 'name', 'permission'],
    run: async (flags) => {
      const env = oneOf('env', flags.env ?? 'live', ['live', 'test']);
      const permission = oneOf('permission', flags.permission ?? 'full', ['full', 'sending']);
      const accountId = await existingAccount(flags.account!);
      const { id, key } = await keys.createKey(keys.operatorOf(accountId), { env, permission, name: flags.name ?? `${env} key` }, new Date());
      return { id, key };
    },
  },
  'key list': {
    summary: "an account's keys, without secrets",
    flags: ['account!'],
    run: async (flags) => ({ keys: await apiKeys.listKeys(await existingAccount(flags.account!)) }),
  },
  'key disable': { summary: 'refuses the key from now on (403)', flags: ['account!', 'id!'], run: (flags) => restrict(flags, 'disable') },
  'key revoke': { summary: 'revokes the key for good (401)', flags: ['account!', 'id!'], run: (flags) => restrict(flags, 'revoke') },
  'domain verify': {
    summary: "records the domain's status for the account (locally: verified)",
    flags: ['account!', 'domain!'],
    run: async (flags) => {
      const domain = flags.domain!.toLowerCase();
      if (!isDomainName(domain)) throw new UsageError(`--domain must be a domain name such as example.com; got "${flags.domain}"`);
      const verifier = deployed ? verification.sesVerifier() : verification.localVerifier;
      return verification.verifyDomain(await existingAccount(flags.account!), domain, verifier);
    },
  },
  'feedback replay': {
    summary: 'replays dead-lettered SES feedback events',
    flags: ['queue!'],
    run: (flags) => deadLetters.replayFeedback(...deadLetterQueue(flags)),
  },
  'retry replay': {
    summary: 'puts dead-lettered throttled sends still queued back on the retry queue',
    flags: ['queue!', 'to!'],
    run: (flags) => deadLetters.replayRetryDeadLetters(...deadLetterQueue(flags), queueUrlFlag(flags, 'to')),
  },
  'retry settle': {
    summary: 'settles dead-lettered throttled sends as failed',
    flags: ['queue!'],
    run: (flags) => deadLetters.settleRetryDeadLetters(...deadLetterQueue(flags)),
  },
  'broadcasts replay': {
    summary: 'puts the start steps of scheduled broadcasts EventBridge Scheduler dead-lettered, still scheduled for their time, on the broadcast queue',
    flags: ['queue!', 'to!'],
    run: (flags) => deadLetters.replayScheduledStarts(...deadLetterQueue(flags), queueUrlFlag(flags, 'to')),
  },
};

const USAGE = `usage: npm run --silent admin -- <${Object.keys(COMMANDS).join(' | ')}> [--flag value]...`;

/** `--help`: every command of the table with its flags (`[--plan PLAN]` optional, `--account ACCOUNT` required). */
function help(): string {
  const synopsis = (name: string, command: Command) =>
    [
      name,
      ...command.flags.map((flag) => {
        const bare = flag.replace(/!$/, '');
        return bare === flag ? `[--${bare} ${bare.toUpperCase()}]` : `--${bare} ${bare.toUpperCase()}`;
      }),
    ].join(' ');
  return [
    'usage: npm run --silent admin -- <command> [--flag value]...',
    'Each command prints one JSON object on stdout (exit 0), or one line on stderr (exit non-zero).',
    '',
    ...Object.entries(COMMANDS).flatMap(([name, command]) => [`  ${synopsis(name, command)}`, `      ${command.summary}`]),
    '',
  ].join('\n');
}

/** `--name value` or `--name=value`, each flag at most once, only the command's own. */
function parseFlags(name: string, command: Command, args: string[]): Flags {
  const known = new Map(command.flags.map((flag) => [flag.replace(/!$/, ''), flag.endsWith('!')]));
  const flags: Flags = {};
  for (let index = 0; index < args.length; index++) {
    const match = /^--([a-z]+)(?:=(.*))?$/s.exec(args[index]!);
    if (!match) throw new UsageError(`Unexpected argument "${args[index]}" for ${name}; flags look like --account ID`);
    const [, flag, inline] = match as unknown as [string, string, string | undefined];
    if (!known.has(flag)) throw new UsageError(`Unknown flag --${flag} for ${name}; it takes ${[...known.keys()].map((f) => `--${f}`).join(', ')}`);
    if (flag in flags) throw new UsageError(`--${flag} is given twice`);
    const value = inline ?? args[++index];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) throw new UsageError(`--${flag} needs a value`);
    flags[flag] = value;
  }
  for (const [flag, required] of known) {
    if (required && !(flag in flags)) throw new UsageError(`${name} needs --${flag}`);
  }
  return flags;
}

/** One line an operator can act on: the endpoint or table when that is the problem, else the error's own message. */
function describe(error: unknown): string {
  const { name = 'Error', message = String(error), code } = (error ?? {}) as Error & { code?: string };
  const where = deployed ? `table ${config.TABLE_NAME} in ${config.AWS_REGION}` : `DynamoDB at ${config.DYNAMODB_ENDPOINT}`;
  if (code === 'ECONNREFUSED' || name === 'TimeoutError' || (error as { cause?: { code?: string } })?.cause?.code === 'ECONNREFUSED') {
    return `Cannot reach ${where}: start the local stack with npm start, or set DYNAMODB_ENDPOINT`;
  }
  if (name === 'ResourceNotFoundException') return `No table ${config.TABLE_NAME} at ${where}: npm start creates it`;
  if (name === 'CredentialsProviderError') return `No AWS credentials for ${where}: ${message}`;
  return message.split('\n')[0]!;
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(help());
    return;
  }
  const name = argv.slice(0, 2).join(' ');
  const command = COMMANDS[name];
  if (!command) throw new UsageError(name ? `Unknown command "${name}"; ${USAGE}` : USAGE);
  const flags = parseFlags(name, command, argv.slice(2));
  process.stdout.write(`${JSON.stringify(await command.run(flags))}\n`);
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof UsageError ? error.message : describe(error)}\n`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
