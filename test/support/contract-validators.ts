/**
 * The response validators of docs/openapi.json, compiled once per version of
 * the document instead of once per test file: loading the ~840 KB document into
 * Ajv cost each of ~100 files a third of a second. Global setup builds them
 * (Ajv standalone code) into node_modules/.cache/postlane/, named by the
 * hash of the document and of this module, so an edited one gets its own; a file imports the result.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

type Operations = Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;

/** A compiled schema: Ajv's validate function, its errors on the last call. */
export type Validate = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

export interface ContractValidators {
  /** By path, then method (lower case), then status: the media types the document gives that response. */
  mediaTypes: Record<string, Record<string, Record<string, string[]>>>;
  /** By `validatorKey`, the schema of each documented JSON response. */
  validators: Record<string, Validate>;
}

const ROOT = resolve(import.meta.dirname, '../..');
const DOCUMENT_PATH = join(ROOT, 'docs/openapi.json');
const DOCUMENT_ID = 'openapi.json';

export function validatorKey(path: string, method: string, status: string): string {
  return `${method.toLowerCase()} ${path} ${status}`;
}

function pointer(...segments: string[]): string {
  return segments.map((segment) => `/${encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('');
}

/** The compiled module's path for the document as it is now, built first when absent. */
export async function compiledContractPath(): Promise<string> {
  const text = readFileSync(DOCUMENT_PATH, 'utf8');
  // This module's own text too: a change to how it compiles must not reuse what the old one wrote.
  const hash = createHash('sha256')
    .update(text)
    .update(readFileSync(import.meta.filename))
    .digest('hex')
    .slice(0, 16);
  const directory = join(ROOT, 'node_modules/.cache/postlane');
  const file = join(directory, `contract-${hash}.cjs`);
  if (existsSync(file)) return file;
  const code = await compile(JSON.parse(text));
  mkdirSync(directory, { recursive: true });
  // Written aside and renamed: another run (another worktree) may be reading or writing the same name.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, code);
  renameSync(partial, file);
  return file;
}

async function compile(document: { paths: Operations }): Promise<string> {
  const [{ Ajv2020 }, { default: addFormats }, { default: standaloneCode }] = await Promise.all([
    import('ajv/dist/2020.js'),
    import('ajv-formats'),
    import('ajv/dist/standalone/index.js'),
  ]);
  // OpenAPI keywords (`example`, `discriminator`) are not JSON Schema's: not strict.
  const ajv = new Ajv2020({ strict: false, allErrors: true, code: { source: true } });
  (addFormats as unknown as (ajv: InstanceType<typeof Ajv2020>) => void)(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const mediaTypes: ContractValidators['mediaTypes'] = {};
  const exports: Record<string, string> = {};
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, { responses }] of Object.entries(methods)) {
      for (const [status, response] of Object.entries(responses)) {
        const types = Object.keys(response.content ?? {});
        ((mediaTypes[path] ??= {})[method] ??= {})[status] = types;
        if (!response.content?.['application/json']?.schema) continue;
        const id = `response${Object.keys(exports).length}`;
        ajv.addSchema({ $id: id, $ref: `${DOCUMENT_ID}#${pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema')}` });
        exports[validatorKey(path, method, status)] = id;
      }
    }
  }
  return `${(standaloneCode as unknown as (ajv: unknown, refs: Record<string, string>) => string)(ajv, exports)}\nexports.mediaTypes = ${JSON.stringify(mediaTypes)};\n`;
}

/** The validators of the document as it is now. */
export async function contractValidators(): Promise<ContractValidators> {
  const module = createRequire(import.meta.url)(await compiledContractPath()) as Record<string, unknown>;
  const { mediaTypes, ...validators } = module;
  return { mediaTypes: mediaTypes as ContractValidators['mediaTypes'], validators: validators as Record<string, Validate> };
}
