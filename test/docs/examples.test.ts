/**
 * Every example in README.md and docs/*.md runs here, in document order, as
 * one local account with `example.com` verified (what `npm start` seeds), so
 * none can drift from what the API does:
 * - ```sh blocks run command by command: `npm run --silent admin -- …`
 *   through the admin CLI, anything else (curl) in bash, with `KEY` set to the
 *   account's live key and http://127.0.0.1:3000 and :8005 rewritten to the
 *   test's API server and SES emulator; a ```json block right after one is the
 *   last command's expected output;
 * - ```http blocks hold exchanges, `METHOD /path body` then `STATUS reply`,
 *   sent with the same key through the local API server;
 * - a reply must have the documented status and the documented shape: the
 *   same keys at every level, the same `success`, `error` and booleans, values
 *   of the same type (ids, timestamps and counts may differ).
 * Ids a reply shows (`aud_…`) stand, in later examples of the same file, for
 * the ids the API really returned. Blocks marked `no-run` (deploying to AWS,
 * the shell set-up) and `text` (a format, not a command) do not run.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';
import { createTestAccount, type TestAccount } from '../support/accounts.ts';
import { admin, freshQueue } from '../support/admin-cli.ts';
import { request, startApi } from '../support/api.ts';
import { storedEmails } from '../sending/support.ts';
import { DOCUMENTS, fencedBlocks, type FencedBlock } from './markdown.ts';
import { expectShape } from './shape.ts';

const LOCAL_API = 'http://127.0.0.1:3000';
const LOCAL_SES = 'http://127.0.0.1:8005';
/** What a `no-run` block may hold: commands and queries that need AWS, or that start what the test already runs. */
const NOT_RUNNABLE = /\b(cdk|aws|AWS_REGION=|logs-insights|npm (start|test|ci)|npm run smoke|KEY=svc_live_|createClient)\b/;
/** A doc id: a kind prefix and an opaque rest (`aud_0Vbcs0FZOM1rqYBywxzZ`, `svc_1795281258231_0Vbd3…`). */
const ID = /^[a-z]{3}_[A-Za-z0-9_]{6,}$/;

let account: TestAccount;
let workDir: string;

beforeAll(async () => {
  account = await createTestAccount({ plan: 'pro' });
  await verifyDomain(account.accountId, 'example.com', localVerifier);
  workDir = mkdtempSync(join(tmpdir(), 'doc-examples-'));
});

/** What one document's examples share as they run: the ids seen so far and the last reply's `data`. */
class Run {
  private readonly ids = new Map<string, string>();
  private readonly queues = new Map<string, string>();
  private lastData: Record<string, unknown> = {};

  /** The example's text with the ids of earlier replies replaced by the real ones. */
  substitute(text: string): string {
    const known = [...this.ids.keys()].sort((a, b) => b.length - a.length);
    return known.reduce((result, docId) => result.replaceAll(docId, this.ids.get(docId)!), text);
  }

  /** Checks `actual` against the documented reply and learns the ids it shows. */
  expectReply(actual: unknown, documented: unknown, where: string): void {
    expectShape(actual, documented, where);
    this.learn(actual, documented);
    const data = (actual as { data?: unknown } | null)?.data;
    this.lastData = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  }

  private learn(actual: unknown, documented: unknown): void {
    if (typeof documented === 'string' && typeof actual === 'string' && ID.test(documented) && documented !== actual) this.ids.set(documented, actual);
    if (Array.isArray(documented) && Array.isArray(actual)) for (const [index, item] of documented.entries()) this.learn(actual[index], item);
    else if (documented && typeof documented === 'object' && actual && typeof actual === 'object') {
      for (const [key, value] of Object.entries(documented)) this.learn((actual as Record<string, unknown>)[key], value);
    }
  }

  /** A shell command's environment: the key, and each string field of the last reply's `data` (`$uploadUrl`). */
  environment(): NodeJS.ProcessEnv {
    const fields = Object.entries(this.lastData).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
    return { ...process.env, ...Object.fromEntries(fields), KEY: account.key };
  }

  /** `<RetryDeadLetterQueueUrl>`: a queue of this run's own, the same one each time the document names it. */
  async queue(placeholder: string): Promise<string> {
    if (!this.queues.has(placeholder)) this.queues.set(placeholder, await freshQueue('doc-example'));
    return this.queues.get(placeholder)!;
  }
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: not valid JSON (${(error as Error).message}):\n${text}`);
  }
}

interface Exchange {
  method: string;
  path: string;
  body?: string;
  status: number;
  reply: string;
}

/** `METHOD /path [body…]` then `STATUS reply…`, exchange after exchange. */
function exchangesOf(block: FencedBlock): Exchange[] {
  const starts = block.text.split(/\n(?=(?:GET|POST|PATCH|PUT|DELETE) \/)/);
  return starts.map((chunk) => {
    const match = /^(GET|POST|PATCH|PUT|DELETE) (\S+)([\s\S]*?)\n(\d{3}) ([\s\S]*)$/.exec(chunk.trim());
    if (!match) throw new Error(`${block.file}:${block.line}: not an exchange (METHOD /path body, then STATUS reply):\n${chunk}`);
    const [, method, path, body, status, reply] = match;
    return { method: method!, path: path!, ...(body!.trim() ? { body: body!.trim() } : {}), status: Number(status), reply: reply!.trim() };
  });
}

/** Shell commands: continued lines joined, blank and comment lines dropped. */
function commandsOf(block: FencedBlock): string[] {
  return block.text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: workDir, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The words bash makes of `text` (quotes, comments and all), without running it. */
async function shellWords(text: string): Promise<string[]> {
  const { stdout } = await run('bash', ['-c', `eval "set -- $1"; printf '%s\\0' "$@"`, 'words', text], process.env);
  return stdout.split('\0').slice(0, -1);
}

async function runCommand(state: Run, command: string, where: string): Promise<string> {
  const { url } = await startApi();
  const local = state.substitute(command).replaceAll(LOCAL_API, url).replaceAll(LOCAL_SES, inject('sesEndpoint'));
  const admin_ = /^npm run --silent admin -- (.*)$/.exec(local);
  if (admin_) {
    let line = admin_[1]!.replaceAll('acc_...', account.accountId);
    for (const [placeholder] of line.matchAll(/<[^<>]+>/g)) line = line.replace(placeholder, await state.queue(placeholder));
    const result = await admin(await shellWords(line));
    expect(result, `${where}: ${command}`).toMatchObject({ code: 0 });
    return result.stdout;
  }
  const result = await run('bash', ['-e', '-o', 'pipefail', '-c', local], state.environment());
  expect(result.code, `${where}: ${command}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

async function runDocument(file: string): Promise<number> {
  const state = new Run();
  const blocks = fencedBlocks(file);
  let ran = 0;
  for (const [index, block] of blocks.entries()) {
    const where = `${file}:${block.line}`;
    const [language] = block.info;
    if (block.info.includes('no-run')) {
      expect(`${block.info.join(' ')}\n${block.text}`, `${where}: a no-run block holds only commands that need AWS or start the stack`).toMatch(NOT_RUNNABLE);
      continue;
    }
    // A diagram runs nothing; test/architecture/layers.test.ts checks the areas' diagram against the code.
    if (language === 'text' || language === 'mermaid') continue;
    if (language === 'json') {
      const previous = blocks[index - 1];
      expect(
        previous && ['sh', 'bash'].includes(previous.info[0]!) && !previous.info.includes('no-run'),
        `${where}: a JSON block is the output of the shell example right above it`,
      ).toBe(true);
      continue;
    }
    if (language === 'sh' || language === 'bash') {
      let output = '';
      for (const command of commandsOf(block)) output = await runCommand(state, command, where);
      const next = blocks[index + 1];
      if (next?.info[0] === 'json')
        state.expectReply(parseJson(output, `${where}: output`), parseJson(next.text, `${file}:${next.line}`), `${file}:${next.line}`);
      ran += 1;
      continue;
    }
    if (language === 'http') {
      for (const exchange of exchangesOf(block)) {
        const body = exchange.body === undefined ? undefined : parseJson(state.substitute(exchange.body), `${where}: request body`);
        const response = await request(exchange.method, state.substitute(exchange.path), { key: account.key, ...(body === undefined ? {} : { body }) });
        const label = `${where}: ${exchange.method} ${exchange.path}`;
        expect(response.status, `${label}\n${JSON.stringify(response.body)}`).toBe(exchange.status);
        state.expectReply(response.body, parseJson(exchange.reply, `${label}: reply`), label);
      }
      ran += 1;
      continue;
    }
    throw new Error(`${where}: a \`\`\`${block.info.join(' ')} block is neither run (sh, bash, http) nor marked no-run, text or mermaid`);
  }
  return ran;
}

describe.sequential('the examples in README.md and docs/*.md', () => {
  it('README: a key from the admin CLI, the first email with curl, and the SES emulator holding it', async () => {
    expect(await runDocument('README.md')).toBeGreaterThanOrEqual(3);
    const sent = (await storedEmails('example.com')).filter((email) => email.subject === 'Hello from Postlane');
    expect(sent.map((email) => email.destination.to)).toContainEqual(['ann@example.org']);
  });

  it.each(DOCUMENTS.filter((file) => file !== 'README.md'))(
    '%s',
    async (file) => {
      await runDocument(file);
    },
    60_000,
  );

  it("runs the API guide's examples of every area", async () => {
    const exchanges = fencedBlocks('docs/api.md')
      .filter((block) => block.info[0] === 'http')
      .flatMap(exchangesOf);
    const paths = new Set(exchanges.map((exchange) => exchange.path.split('/')[2]));
    expect([...paths].sort()).toEqual(
      expect.arrayContaining(['attachments', 'audiences', 'contacts', 'domains', 'email', 'emails', 'forms', 'otp', 'templates']),
    );
  });
});
