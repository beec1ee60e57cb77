/**
 * The runtime tree's layers (docs/architecture.md, "Layers"): every import in
 * shared/ and functions/ goes down or sideways, never up; nothing that runs in
 * Lambda reaches for development tooling or a devDependency. Read from the
 * sources with TypeScript's parser (comments and strings are not imports),
 * nothing bundled, so it runs in a second.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Lowest first; a module may import its own layer and those below it. */
const LAYERS: readonly { name: string; paths: readonly string[] }[] = [
  { name: 'model', paths: ['shared/model/', 'shared/errors.ts', 'shared/ids.ts', 'shared/log.ts', 'shared/config.ts'] },
  { name: 'templating', paths: ['shared/templating/'] },
  { name: 'schemas', paths: ['shared/schemas/'] },
  { name: 'data', paths: ['shared/aws/', 'shared/data/'] },
  { name: 'email', paths: ['shared/email/'] },
  { name: 'domain', paths: ['shared/domain/', 'shared/webhooks/'] },
  { name: 'edge', paths: ['shared/pages/', 'shared/http/'] },
  { name: 'functions', paths: ['functions/'] },
];

/** Development tooling: never imported by what runs in Lambda. */
const TOOLING = ['dev/', 'lib/', 'bin/', 'bench/', 'scripts/', 'test/'];

/** Lambda's event types belong to the handlers that receive the events, and to the HTTP edge that adapts API Gateway's. */
const LAMBDA_EVENT_TYPES_ALLOWED = ['functions/', 'shared/http/'];

const ALIASES: Record<string, string> = { '#shared/': 'shared/', '#functions/': 'functions/', '#dev/': 'dev/' };

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

interface Import {
  specifier: string;
  /** Erased from the JavaScript (`import type`, `typeof import()`): costs nothing at run time. */
  typeOnly: boolean;
}

/** Every module specifier `file` names: static imports, re-exports, `import()` calls and import types. */
function importsOf(file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        Boolean(clause) &&
        (clause!.isTypeOnly ||
          (!clause!.name &&
            bindings !== undefined &&
            ts.isNamedImports(bindings) &&
            bindings.elements.length > 0 &&
            bindings.elements.every((element) => element.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const typeOnly =
        node.isTypeOnly ||
        (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      // A computed specifier cannot be checked here: refuse it rather than let it through.
      found.push({ specifier: argument && ts.isStringLiteralLike(argument) ? argument.text : '<computed import()>', typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function layerOf(path: string): number {
  return LAYERS.findIndex((layer) => layer.paths.some((prefix) => (prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix)));
}

/** The repository path a specifier names, or undefined for a package. */
function resolve(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return normalize(join(dirname(file), specifier));
  const alias = Object.keys(ALIASES).find((prefix) => specifier.startsWith(prefix));
  if (alias) return ALIASES[alias] + specifier.slice(alias.length);
  return undefined;
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** What is wrong with one import of a runtime file (shared/, functions/); undefined when nothing is. */
function problemOf(file: string, { specifier, typeOnly }: Import): string | undefined {
  if (specifier === '<computed import()>') return 'an import() whose module is not a string literal';
  if (specifier.startsWith('#') && !Object.keys(ALIASES).some((prefix) => specifier.startsWith(prefix))) return 'an unknown import alias';
  const target = resolve(file, specifier);
  if (target === undefined) {
    const name = packageOf(specifier);
    if (name === 'aws-lambda' && !LAMBDA_EVENT_TYPES_ALLOWED.some((prefix) => file.startsWith(prefix)))
      return 'Lambda event types outside functions/ and shared/http/: unwrap the event in the handler';
    if (typeOnly || specifier.startsWith('node:') || builtinModules.includes(name)) return undefined;
    if (name in manifest.devDependencies) return 'a devDependency, absent from the deployed function';
    if (!(name in manifest.dependencies)) return 'a package that is not in dependencies';
    return undefined;
  }
  if (TOOLING.some((prefix) => target.startsWith(prefix))) return `development tooling (${target.split('/')[0]}/)`;
  if (file.startsWith('shared/') && target.startsWith('functions/')) return 'functions/ from shared/';
  if (!target.endsWith('.ts')) return undefined;
  if (!existsSync(target)) return `${target}, which does not exist`;
  const from = layerOf(file);
  const to = layerOf(target);
  if (to === -1) return `${target}, which is in no layer`;
  if (to > from) return `layer ${LAYERS[to]!.name} (${target}) from layer ${LAYERS[from]!.name}`;
  return undefined;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

const runtimeFiles = [...sourceFiles('shared'), ...sourceFiles('functions')];

describe('layers of the runtime tree', () => {
  it('place every file of shared/ and functions/ in a layer', () => {
    expect(runtimeFiles.filter((file) => layerOf(file) === -1)).toEqual([]);
  });

  it('hold no import that climbs a layer, reaches development tooling or a devDependency, or brings Lambda event types below the handlers', () => {
    const imports = runtimeFiles.flatMap((file) => importsOf(file, readFileSync(file, 'utf8')).map((entry) => ({ file, entry })));
    const offending = imports.flatMap(({ file, entry }) => {
      const problem = problemOf(file, entry);
      return problem ? [`${file}: import '${entry.specifier}' reaches ${problem}`] : [];
    });

    // The walker must see the tree's imports, or an empty list proves nothing.
    expect(imports.length).toBeGreaterThan(400);
    expect(offending).toEqual([]);
  });
});

describe('the import checker', () => {
  const problems = (file: string, text: string) =>
    importsOf(file, text)
      .map((entry) => problemOf(file, entry))
      .filter(Boolean);

  it('names an import that climbs, static or dynamic, relative or aliased', () => {
    expect(problems('shared/data/x.ts', "import type { Contact } from '#shared/domain/contacts.ts';")).toEqual([
      'layer domain (shared/domain/contacts.ts) from layer data',
    ]);
    expect(problems('shared/schemas/x.ts', "const m = await import('../email/address.ts');")).toEqual([
      'layer email (shared/email/address.ts) from layer schemas',
    ]);
    expect(problems('shared/domain/x.ts', "export { parseInput } from '#shared/http/endpoint.ts';")).toEqual([
      'layer edge (shared/http/endpoint.ts) from layer domain',
    ]);
  });

  it('lets imports go down and sideways', () => {
    expect(problems('shared/domain/x.ts', "import { db } from '#shared/data/client.ts';\nimport { log } from '../log.ts';\nimport './contacts.ts';")).toEqual(
      [],
    );
    expect(problems('shared/pages/x.ts', "import type { Reply } from '#shared/http/reply.ts';")).toEqual([]);
  });

  it('refuses development tooling, functions/ from shared/, devDependencies and computed imports, and reads no comment as an import', () => {
    expect(problems('functions/x/y.ts', "await import('#dev/local/sqs.ts');")).toEqual(['development tooling (dev/)']);
    expect(problems('shared/http/x.ts', "import { handler } from '#functions/contacts/create.ts';")).toEqual(['functions/ from shared/']);
    expect(problems('shared/aws/x.ts', "import { S3Client } from '@aws-sdk/client-s3';")).toEqual(['a devDependency, absent from the deployed function']);
    expect(problems('shared/aws/x.ts', "import type { S3Client } from '@aws-sdk/client-s3';")).toEqual([]);
    expect(problems('shared/domain/x.ts', 'await import(name);')).toEqual(['an import() whose module is not a string literal']);
    expect(problems('shared/domain/x.ts', "// (await import('#functions/contacts/create.ts')).handler\nconst s = \"import x from '#dev/a.ts'\";")).toEqual([]);
  });

  it('keeps Lambda event types in functions/ and shared/http/', () => {
    expect(problems('shared/domain/x.ts', "import type { SQSEvent } from 'aws-lambda';")).toEqual([
      'Lambda event types outside functions/ and shared/http/: unwrap the event in the handler',
    ]);
    expect(problems('functions/email/x.ts', "import type { SQSEvent } from 'aws-lambda';")).toEqual([]);
  });
});
