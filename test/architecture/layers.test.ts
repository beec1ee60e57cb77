/**
 * The runtime tree's dependency rule (docs/architecture.md, "Areas"):
 * handlers → an area's service → its store → the platform. shared/platform/
 * imports no area; an area uses another only through that area's service
 * (never a `store.ts` or `*-store.ts` of another area); no cycle between the
 * folders of shared/; nothing that runs in Lambda reaches for development
 * tooling or a devDependency. Read from the sources with TypeScript's parser
 * (comments and strings are not imports), nothing bundled, so it runs in a second.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Development tooling: never imported by what runs in Lambda. */
const TOOLING = ['dev/', 'lib/', 'bin/', 'bench/', 'scripts/', 'test/'];

/** Lambda's event types belong to the handlers that receive the events, and to the HTTP edge that adapts API Gateway's. */
const LAMBDA_EVENT_TYPES_ALLOWED = ['functions/', 'shared/platform/http/', 'shared/platform/handlers/'];

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

/** The folder of shared/ a file belongs to (`platform/http`, `contacts`), `functions` for handlers, else undefined. */
function folderOf(path: string): string | undefined {
  if (path.startsWith('functions/')) return 'functions';
  if (!path.startsWith('shared/')) return undefined;
  return dirname(path.slice('shared/'.length)) === '.' ? '.' : dirname(path.slice('shared/'.length));
}

const areaOf = (folder: string) => folder.split('/')[0]!;
const isStore = (path: string) => /(^|[/-])store\.ts$/.test(path);

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
      return 'Lambda event types outside functions/ and the platform’s edges: unwrap the event in the handler';
    if (typeOnly || specifier.startsWith('node:') || builtinModules.includes(name)) return undefined;
    if (name in manifest.devDependencies) return 'a devDependency, absent from the deployed function';
    if (!(name in manifest.dependencies)) return 'a package that is not in dependencies';
    return undefined;
  }
  if (TOOLING.some((prefix) => target.startsWith(prefix))) return `development tooling (${target.split('/')[0]}/)`;
  if (file.startsWith('shared/') && target.startsWith('functions/')) return 'functions/ from shared/';
  if (!target.endsWith('.ts')) return undefined;
  if (!existsSync(target)) return `${target}, which does not exist`;
  const from = folderOf(file);
  const to = folderOf(target);
  if (from === undefined || to === undefined || to === '.') return `${target}, which is in no area or platform folder`;
  if (from === 'functions')
    return isStore(target) && to !== 'platform' && !to.startsWith('platform/') ? `a store (${target}): handlers call the area's service` : undefined;
  if (to === 'functions') return undefined;
  if (areaOf(from) === 'platform') return areaOf(to) === 'platform' ? undefined : `an area (${target}) from the platform`;
  if (areaOf(to) === areaOf(from) || areaOf(to) === 'platform') return undefined;
  return isStore(target) ? `another area's store (${target}): use that area's service` : undefined;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

const runtimeFiles = [...sourceFiles('shared'), ...sourceFiles('functions')];

/** One edge of the folder graph, with the imports that make it. */
type FolderGraph = Map<string, Map<string, string[]>>;

/** Which folder of shared/ imports which, type imports included: a cycle of types is still a cycle a reader must untangle. */
function folderGraph(files: readonly { file: string; text: string }[]): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const { file, text } of files) {
    const from = folderOf(file);
    if (from === undefined || from === 'functions') continue;
    for (const { specifier } of importsOf(file, text)) {
      const target = resolve(file, specifier);
      const to = target === undefined ? undefined : folderOf(target);
      if (to === undefined || to === from || to === 'functions') continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), `${file} → ${target}`]);
    }
  }
  return graph;
}

/** Every cycle's strongly connected folders (Tarjan), each named with the imports that close it. */
function folderCycles(graph: FolderGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const connect = (folder: string): void => {
    index.set(folder, counter);
    low.set(folder, counter++);
    stack.push(folder);
    for (const next of graph.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(folder, Math.min(low.get(folder)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(folder, Math.min(low.get(folder)!, index.get(next)!));
    }
    if (low.get(folder) !== index.get(folder)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      members.push(member);
    } while (member !== folder);
    if (members.length < 2) return;
    cycles.push(members.flatMap((from) => [...(graph.get(from) ?? [])].filter(([to]) => members.includes(to)).flatMap(([, imports]) => imports)));
  };
  for (const folder of graph.keys()) if (!index.has(folder)) connect(folder);
  return cycles;
}

describe('the dependency rule of the runtime tree', () => {
  it('places every file of shared/ in the platform or an area, never at its top', () => {
    expect(runtimeFiles.filter((file) => folderOf(file) === '.')).toEqual([]);
  });

  it('holds no import into another area’s store, from the platform into an area, into development tooling or a devDependency, nor Lambda event types below the edges', () => {
    const imports = runtimeFiles.flatMap((file) => importsOf(file, readFileSync(file, 'utf8')).map((entry) => ({ file, entry })));
    const offending = imports.flatMap(({ file, entry }) => {
      const problem = problemOf(file, entry);
      return problem ? [`${file}: import '${entry.specifier}' reaches ${problem}`] : [];
    });

    // The walker must see the tree's imports, or an empty list proves nothing.
    expect(imports.length).toBeGreaterThan(400);
    expect(offending).toEqual([]);
  });

  it('has no cycle between the folders of shared/', () => {
    const graph = folderGraph(runtimeFiles.map((file) => ({ file, text: readFileSync(file, 'utf8') })));
    expect(graph.size).toBeGreaterThan(10);
    expect(folderCycles(graph)).toEqual([]);
  });
});

/** The arrows of docs/architecture.md's diagram of the areas: `a --> b` between two area names. */
function diagramArrows(markdown: string): [string, string][] {
  const diagram = /```mermaid\n([\s\S]*?)```/.exec(markdown)?.[1] ?? '';
  return [...diagram.matchAll(/^\s*([a-z]+) --> ([a-z]+)\s*$/gm)].map((match) => [match[1]!, match[2]!]);
}

/** Which areas each area reaches, directly or through others. */
function reach(edges: readonly [string, string][]): Map<string, Set<string>> {
  const next = new Map<string, Set<string>>();
  for (const [from, to] of edges) next.set(from, new Set([...(next.get(from) ?? []), to]));
  const reached = new Map<string, Set<string>>();
  for (const start of next.keys()) {
    const seen = new Set<string>();
    const walk = (area: string) => {
      for (const to of next.get(area) ?? []) if (!seen.has(to)) seen.add(to) && walk(to);
    };
    walk(start);
    reached.set(start, seen);
  }
  return reached;
}

describe("docs/architecture.md's diagram of the areas", () => {
  const graph = folderGraph(runtimeFiles.map((file) => ({ file, text: readFileSync(file, 'utf8') })));
  const areaEdges = [...graph].flatMap(([from, edges]) =>
    [...edges.keys()].filter((to) => areaOf(to) !== areaOf(from) && areaOf(to) !== 'platform').map((to): [string, string] => [areaOf(from), areaOf(to)]),
  );
  const arrows = diagramArrows(readFileSync('docs/architecture.md', 'utf8'));

  it('draws no arrow the code does not have', () => {
    const real = reach(areaEdges);
    expect(arrows.length).toBeGreaterThan(10);
    expect(arrows.filter(([from, to]) => !real.get(from)?.has(to))).toEqual([]);
  });

  it('implies every arrow the code has', () => {
    const drawn = reach(arrows);
    expect([...new Set(areaEdges.filter(([from, to]) => !drawn.get(from)?.has(to)).map((edge) => edge.join(' --> ')))]).toEqual([]);
  });
});

describe('the import checker', () => {
  const problems = (file: string, text: string) =>
    importsOf(file, text)
      .map((entry) => problemOf(file, entry))
      .filter(Boolean);

  it('names an import of another area’s store, static or dynamic, relative or aliased, and a handler’s', () => {
    expect(problems('shared/forms/service.ts', "import type { ContactRecord } from '#shared/contacts/store.ts';")).toEqual([
      "another area's store (shared/contacts/store.ts): use that area's service",
    ]);
    expect(problems('shared/forms/service.ts', "const m = await import('../domains/ses-identity-store.ts');")).toEqual([
      "another area's store (shared/domains/ses-identity-store.ts): use that area's service",
    ]);
    expect(problems('functions/contacts/get.ts', "import { getContact } from '#shared/contacts/store.ts';")).toEqual([
      "a store (shared/contacts/store.ts): handlers call the area's service",
    ]);
  });

  it('keeps the platform below every area', () => {
    expect(problems('shared/platform/http/x.ts', "export { authenticate } from '#shared/accounts/service.ts';")).toEqual([
      'an area (shared/accounts/service.ts) from the platform',
    ]);
  });

  it('lets an area use its own files, the platform and other areas’ services', () => {
    expect(
      problems(
        'shared/forms/service.ts',
        "import { db } from '#shared/platform/dynamodb/client.ts';\nimport { getForm } from './store.ts';\nimport { createContact } from '#shared/contacts/service.ts';",
      ),
    ).toEqual([]);
    expect(problems('functions/forms/get.ts', "import type { Reply } from '#shared/platform/http/reply.ts';")).toEqual([]);
  });

  it('refuses development tooling, functions/ from shared/, devDependencies and computed imports, and reads no comment as an import', () => {
    expect(problems('functions/x/y.ts', "await import('#dev/local/sqs.ts');")).toEqual(['development tooling (dev/)']);
    expect(problems('shared/platform/http/x.ts', "import { handler } from '#functions/contacts/create.ts';")).toEqual(['functions/ from shared/']);
    expect(problems('shared/platform/aws/x.ts', "import { S3Client } from '@aws-sdk/client-s3';")).toEqual([
      'a devDependency, absent from the deployed function',
    ]);
    expect(problems('shared/platform/aws/x.ts', "import type { S3Client } from '@aws-sdk/client-s3';")).toEqual([]);
    expect(problems('shared/forms/x.ts', 'await import(name);')).toEqual(['an import() whose module is not a string literal']);
    expect(problems('shared/forms/x.ts', "// (await import('#functions/contacts/create.ts')).handler\nconst s = \"import x from '#dev/a.ts'\";")).toEqual([]);
  });

  it('keeps Lambda event types in functions/ and the platform’s edges', () => {
    expect(problems('shared/forms/x.ts', "import type { SQSEvent } from 'aws-lambda';")).toEqual([
      'Lambda event types outside functions/ and the platform’s edges: unwrap the event in the handler',
    ]);
    expect(problems('functions/email/x.ts', "import type { SQSEvent } from 'aws-lambda';")).toEqual([]);
  });
});

describe('the folder graph', () => {
  it('names the imports that close a cycle, and none where the arrows go one way', () => {
    const graph = folderGraph([
      { file: 'shared/contacts/service.ts', text: "import { a } from '#shared/audiences/service.ts';" },
      { file: 'shared/audiences/service.ts', text: "import { b } from '../contacts/schema.ts';\nimport { c } from '#shared/platform/ids.ts';" },
      { file: 'shared/forms/service.ts', text: "import { d } from '#shared/contacts/service.ts';" },
    ]);
    expect(folderCycles(graph)).toEqual([
      ['shared/audiences/service.ts → shared/contacts/schema.ts', 'shared/contacts/service.ts → shared/audiences/service.ts'],
    ]);
    graph.get('audiences')!.delete('contacts');
    expect(folderCycles(graph)).toEqual([]);
  });
});
