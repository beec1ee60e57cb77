/**
 * The variables every template sees whatever the caller passes (docs/api.md, "Built-in variables"):
 * currentYear, currentDate, unsubscribeUrl, preferencesUrl.
 */

export const BUILTIN_VARIABLE_NAMES = ['currentYear', 'currentDate', 'unsubscribeUrl', 'preferencesUrl'] as const;

export type BuiltinVariables = Record<(typeof BUILTIN_VARIABLE_NAMES)[number], string>;

/** Where the links point in a render preview: no recipient exists, so no signed link can be made. */
export const PREVIEW_LINKS = {
  unsubscribeUrl: '#unsubscribe-preview',
  preferencesUrl: '#preferences-preview',
} as const;

/**
 * Spelled out rather than `Intl.DateTimeFormat`: building a formatter loads ICU
 * data, about 13 ms of every cold start of each function that renders templates.
 */
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `November 21, 2026`: en-US, long month, in UTC. */
function formatDate(date: Date): string {
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}

/**
 * The built-ins for one message. A send passes the recipient's signed links; a
 * preview passes none and gets PREVIEW_LINKS.
 *
 * `builtinVariables(new Date('2026-11-21T10:00:00Z'))` gives
 * `{currentYear: '2026', currentDate: 'November 21, 2026', unsubscribeUrl: '#unsubscribe-preview', …}`
 */
export function builtinVariables(now: Date, links?: { unsubscribeUrl: string; preferencesUrl: string }): Record<string, string> {
  const builtins: BuiltinVariables = {
    currentYear: String(now.getUTCFullYear()),
    currentDate: formatDate(now),
    unsubscribeUrl: links?.unsubscribeUrl ?? PREVIEW_LINKS.unsubscribeUrl,
    preferencesUrl: links?.preferencesUrl ?? PREVIEW_LINKS.preferencesUrl,
  };
  return builtins;
}

/** Which of its signed links a render read, under whatever name or through whatever filter. */
export interface LinkReads {
  unsubscribeUrl: boolean;
  preferencesUrl: boolean;
}

/**
 * The built-ins of one send's render, its signed links behind getters that
 * note each read: whether a message shows a link is decided by what its
 * render read, which no spelling of the name (`{% assign k = 'prefer' |
 * append: 'encesUrl' %}{{ [k] }}`) and no filter avoids. Without `links` the
 * getters read as the preview placeholders (PREVIEW_LINKS), which sign
 * nothing: a render of that scope cannot show a signed link, however the
 * template encodes it. Pass `builtins` to `withBuiltins`, which keeps the getters.
 */
export function trackedBuiltins(now: Date, links?: { unsubscribeUrl: string; preferencesUrl: string }): { builtins: Record<string, string>; reads: LinkReads } {
  const reads: LinkReads = { unsubscribeUrl: false, preferencesUrl: false };
  const builtins = builtinVariables(now);
  for (const name of ['unsubscribeUrl', 'preferencesUrl'] as const) {
    const value = links?.[name] ?? PREVIEW_LINKS[name];
    Object.defineProperty(builtins, name, {
      enumerable: true,
      get: () => {
        reads[name] = true;
        return value;
      },
    });
  }
  return { builtins, reads };
}

/**
 * The scope a template renders in. Built-ins win over caller variables of the
 * same name: a sender must not be able to point `unsubscribeUrl` at a page of
 * its own, and one rule for all four is easier to explain than four. Copied
 * as property descriptors, not values, so the getters of `trackedBuiltins`
 * run when the template reads them, not here.
 */
export function withBuiltins(variables: Record<string, unknown>, builtins: Record<string, string>): Record<string, unknown> {
  return Object.defineProperties({ ...variables }, Object.getOwnPropertyDescriptors(builtins));
}
