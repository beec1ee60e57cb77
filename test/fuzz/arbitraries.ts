/**
 * fast-check arbitraries for request inputs, derived from an endpoint's own
 * valibot schema (read from the endpoint's contract, never restated here): values of
 * the schema's shape, then bent into hostile ones (wrong types, missing and
 * extra fields, huge and odd strings, deep nesting, prototype keys).
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { RESERVED_KEYS } from '#shared/platform/schema/common.ts';

type Schema = v.GenericSchema & {
  type: string;
  entries?: Record<string, Schema>;
  wrapped?: Schema;
  item?: Schema;
  value?: Schema;
  options?: readonly unknown[];
  getter?: (input: unknown) => Schema;
  literal?: unknown;
};

/** Strings that have broken parsers, key builders and renderers elsewhere. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\u0000abc',
  '\r\n\r\n',
  '\t',
  '\u202e',
  '\ud800',
  '\udfff',
  '\uffff',
  '\ufeff',
  '😀'.repeat(20),
  '#',
  '##',
  'acc_x#CON',
  'x#AUD#aud_1',
  '%',
  '%00',
  '%zz',
  '../..',
  '/',
  '\\',
  '"',
  "'",
  '<script>alert(1)</script>',
  '{{unsubscribeUrl}}',
  '{% for i in (1..100000000) %}x{% endfor %}',
  '{{#if x}}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a JavaScript template placeholder, sent as hostile text on purpose
  '${x}',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  '0x10',
  '1.5',
  '9'.repeat(30),
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'not-base64!!',
  '====',
  'a'.repeat(5),
  '2026-13-45',
  '2026-02-30T25:61:00Z',
  'yesterday',
  '0000-00-00',
  'x@',
  '@x',
  'a@b',
  'a@b.c.',
  'a..b@example.com',
  ' A@EXAMPLE.COM ',
  'a@example.com\n',
  'a@example.com,b@example.com',
];

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/** Huge strings: over every text limit the schemas set, below the body limits' order of magnitude. */
const hugeString = fc.constantFrom(1_000, 70_000, 300_000).chain((length) => fc.constantFrom('a', 'é', '😀', '\u0000', '<').map((unit) => unit.repeat(length)));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: hugeString },
);

const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, 0.5, -0.5, 1.5, 1e21, -1e21, Number.MAX_SAFE_INTEGER + 2, Number.MIN_VALUE, -0),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
);

/** Arrays or objects nested past any depth a body should have. */
const deepNesting = fc.integer({ min: 50, max: 500 }).chain((depth) =>
  fc.constantFrom('array', 'object').map((kind) => {
    let value: unknown = 1;
    for (let level = 0; level < depth; level++) value = kind === 'array' ? [value] : { a: value };
    return value;
  }),
);

/** An object whose own keys include a prototype name: JSON.parse makes `__proto__` an own key, and so does this. */
const prototypeKeyed = fc
  .tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 2 }))
  .map(([key, value]) => JSON.parse(`{${JSON.stringify(key)}: ${JSON.stringify(value)}}`) as unknown);

/** A value of any JSON type, biased to the awkward ones. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], ['']) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: prototypeKeyed },
);

/*
 * The arbitraries `shapedBy` answers for every field of every route's schemas, made once: making a string or
 * address arbitrary maps its whole character set, seconds of a run's CPU when made anew for each field.
 */

/** A string typed value of the schema's shape: a picklist's options, else anything. */
const stringLike: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.emailAddress(),
  fc.constantFrom('2026-11-21', '2026-11-21T10:00:00.000Z', 'SGVsbG8=', 'https://example.com/a'),
);
const shallowJson = fc.jsonValue({ maxDepth: 1 });
const lazyJson = fc.jsonValue({ maxDepth: 2 });
const recordKey = fc.string({ maxLength: 10 });

/**
 * Values shaped like `schema` (right field names, roughly right types): the
 * starting point the hostile mutations bend, so they reach past the first
 * check of a schema into its nested ones.
 */
export function shapedBy(input: v.GenericSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  // The schema objects' own fields (entries, wrapped, options…), which valibot's public types do not expose on GenericSchema.
  const schema = input as Schema | undefined;
  if (!schema || depth > 4) return shallowJson;
  switch (schema.type) {
    case 'object':
    case 'strict_object':
    case 'loose_object': {
      const entries = Object.entries(schema.entries ?? {}).map(([key, entry]) => [key, shapedBy(entry, depth + 1)] as const);
      return fc.record(Object.fromEntries(entries), { requiredKeys: [] });
    }
    case 'optional':
    case 'nullable':
    case 'nullish':
    case 'exact_optional':
    case 'non_optional':
    case 'non_nullable':
      return shapedBy(schema.wrapped, depth);
    case 'lazy':
      return lazyJson;
    case 'array':
      return fc.array(shapedBy(schema.item, depth + 1), { maxLength: 3 });
    case 'record':
      return fc.dictionary(recordKey, shapedBy(schema.value, depth + 1), { maxKeys: 3 });
    case 'union':
    case 'variant':
      return fc.oneof(...(schema.options as Schema[]).map((option) => shapedBy(option, depth + 1)));
    case 'picklist':
      return fc.constantFrom(...(schema.options as unknown[]));
    case 'literal':
      return fc.constant(schema.literal);
    case 'string':
      return stringLike;
    case 'number':
      return fc.integer({ min: 0, max: 100 });
    case 'boolean':
      return fc.boolean();
    default:
      return shallowJson;
  }
}

type Path = (string | number)[];

/** Deep enough for every field of every schema; deeper is nesting a mutation made. */
const MAX_MUTATION_DEPTH = 8;

/** Paths to the values inside `value` down to MAX_MUTATION_DEPTH, the root included. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const paths: Path[] = [prefix];
  if (prefix.length >= MAX_MUTATION_DEPTH) return paths;
  if (Array.isArray(value)) for (const [index, item] of value.entries()) paths.push(...pathsOf(item, [...prefix, index]));
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  return paths;
}

/** A copy of `value` with the value at `path` replaced (`replacement` undefined: removed). */
function replaceAt(value: unknown, path: Path, replacement: (old: unknown) => unknown): unknown {
  if (path.length === 0) return replacement(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? replaceAt(item, rest, replacement) : item));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const next = key === head ? replaceAt(item, rest, replacement) : item;
    if (next !== undefined) Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

const REMOVE = (): undefined => undefined;

/** One hostile change at one place inside `value`. */
function mutated(value: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(value);
  return fc
    .tuple(fc.constantFrom(...paths), fc.integer({ min: 0, max: 3 }), hostileValue, fc.constantFrom(...PROTOTYPE_KEYS, 'unknownField', ''))
    .map(([path, kind, hostile, extraKey]) => {
      switch (kind) {
        case 0:
          return replaceAt(value, path, () => hostile);
        case 1:
          return path.length === 0 ? hostile : replaceAt(value, path, REMOVE);
        case 2:
          return replaceAt(value, path, (old) =>
            old && typeof old === 'object' && !Array.isArray(old)
              ? (JSON.parse(JSON.stringify({ ...old, [extraKey]: hostile }) ?? 'null') as unknown)
              : [old, hostile],
          );
        default:
          return replaceAt(value, path, (old) => [old]);
      }
    });
}

/** `value` with one or two hostile changes. */
export function bent(value: unknown): fc.Arbitrary<unknown> {
  return mutated(value).chain((once) => fc.oneof(fc.constant(once), mutated(once)));
}

/** Inputs for `schema` made hostile: a schema-shaped value with one or two hostile changes. */
export function hostileInput(schema: v.GenericSchema | undefined): fc.Arbitrary<unknown> {
  return shapedBy(schema).chain(bent);
}

/** Query strings: schema-shaped parameters with hostile values, unknown names and repeats. */
export function hostileQuery(schema: v.GenericSchema | undefined): fc.Arbitrary<string> {
  const names = Object.keys((schema as Schema | undefined)?.entries ?? {});
  const name = names.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: hostileString }) : hostileString;
  const value = fc.oneof(hostileString, hostileNumber.map(String));
  return fc
    .array(fc.tuple(name, value), { minLength: 1, maxLength: 4 })
    .map((pairs) => pairs.map(([key, item]) => `${urlEncoded(key.slice(0, 100))}=${urlEncoded(item.slice(0, 300))}`).join('&'));
}

/**
 * Percent-encoded as UTF-8; a lone surrogate, which has no UTF-8 form,
 * becomes the bytes a careless client would send for it (`%ED%A0%80`).
 */
export function urlEncoded(text: string): string {
  let encoded = '';
  // By code point: a lone surrogate comes out on its own, where encodeURIComponent would throw.
  for (const char of text) {
    const code = char.codePointAt(0)!;
    encoded +=
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')
        : encodeURIComponent(char);
  }
  return encoded;
}

/** Raw bodies no schema sees: not JSON, not an object, truncated, or JSON with odd encodings. */
export const hostileRawBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'null',
    'true',
    '1',
    '"text"',
    '[]',
    '[{}]',
    '{',
    '{"a":',
    '{"a":1,}',
    "{'a':1}",
    'undefined',
    'NaN',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '\u0000{}',
    '\ufeff{}',
    '{"a":1}{"b":2}',
    `{"a":"${'\\ud800'}"}`,
    '{"a":1e400}',
    '{"a":-0}',
  ),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
);

/** Path parameter values: ids of the wrong kind, shape or encoding. */
export const hostileParam: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('x', 'aud_', 'con_00000000000000000000', 'tpl_zzzzzzzzzzzzzzzzzzzz', '..', '%', '#', 'acc_x#CON', ' ', '\u0000', '😀', 'a'.repeat(1_500)),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
);

/** A place in a body where the schema expects an object. */
export interface ObjectField {
  path: Path;
  /** As the error envelope names it: `settings`, `fields[0]`, `variables`. */
  field: string;
  /** Any keys allowed (customFields, variables, a submission): reserved keys are what is refused there. */
  freeMap: boolean;
  /** The schema of that place, wrappers (optional, nullable) removed. */
  schema: v.GenericSchema;
}

/** `['fields', 0, 'label']` as the envelope's `field`: `fields[0].label`. */
export function fieldName(path: Path): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : `${out}${out ? '.' : ''}${key}`), '');
}

const WRAPPERS = ['optional', 'nullable', 'nullish', 'exact_optional', 'non_optional', 'non_nullable'];

function unwrapped(schema: Schema): Schema {
  let inner = schema;
  while (WRAPPERS.includes(inner.type) && inner.wrapped) inner = inner.wrapped;
  return inner;
}

/** 'strict' for an object with named entries, 'free' for a map of any keys (a record, or a custom schema that takes `{}` and not `[]`). */
function objectKind(schema: Schema): 'strict' | 'free' | undefined {
  if (['object', 'strict_object', 'loose_object'].includes(schema.type)) return 'strict';
  if (schema.type === 'record') return 'free';
  if (schema.type === 'custom' && v.safeParse(schema, {}).success && !v.safeParse(schema, []).success) return 'free';
  return undefined;
}

/**
 * Every place in `body` (a valid body of the route, or `{}`) where `schema`
 * expects an object: the root when it is a free map, each object entry
 * (present or not), and the objects inside the arrays the body holds.
 */
export function objectFields(input: v.GenericSchema | undefined, body: unknown, path: Path = []): ObjectField[] {
  if (!input || path.length > MAX_MUTATION_DEPTH) return [];
  const schema = unwrapped(input as Schema);
  const kind = objectKind(schema);
  const found: ObjectField[] = kind && (path.length > 0 || kind === 'free') ? [{ path, field: fieldName(path), freeMap: kind === 'free', schema }] : [];
  if (kind === 'strict') {
    const present = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    for (const [key, entry] of Object.entries(schema.entries ?? {})) found.push(...objectFields(entry, present[key], [...path, key]));
  }
  if (schema.type === 'array' && Array.isArray(body))
    for (const [index, item] of body.entries()) found.push(...objectFields(schema.item, item, [...path, index]));
  return found;
}

/** A copy of `body` with `replacement` at `path`, the field added when absent. */
export function withValueAt(body: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(body)) return body.map((item, index) => (index === head ? withValueAt(item, rest, replacement) : item));
  const object = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  return { ...object, [head!]: withValueAt(object[head!], rest, replacement) };
}

/** What a client may send where an object belongs (docs/api.md, "Errors": an array, a string or a number). */
export const NOT_OBJECTS: readonly unknown[] = [[], [{}], ['x'], 'text', 42];

/** `{"<key>": {"polluted": true}}` with the reserved key as an own key, as JSON.parse makes it. */
export const reservedKeyed: readonly { key: string; value: unknown }[] = [...RESERVED_KEYS].map((key) => ({
  key,
  value: JSON.parse(`{${JSON.stringify(key)}: {"polluted": true}}`) as unknown,
}));

/** JSON text of objects nested `depth` deep: as text, since JSON.stringify of the value would overflow the stack first. */
export function deepJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}
