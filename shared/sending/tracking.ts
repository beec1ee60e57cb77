/**
 * Open and click tracking (docs/api.md, "Tracking"). SES adds its pixel and
 * rewrites links only in messages sent through a configuration set whose
 * event destination publishes opens or clicks; the stack has one such set
 * beside its own, `<base>-tracking`, publishing both (lib/feedback.ts). A
 * set per combination would cost the stack four more resources, so the
 * message itself narrows it: links marked `ses:no-track` are not rewritten,
 * and the opens of a message that asked only for clicks are not counted (SES
 * still adds its pixel there). Shared by the stack and the transport; loads no SDK.
 */

export interface Tracking {
  opens: boolean;
  clicks: boolean;
}

/** What the tracking set's name adds to the stack's set's name. */
export const TRACKING_SET_SUFFIX = '-tracking';

/** The set a message goes through: `base` without tracking, else `<base>-tracking`. */
export function configurationSetFor(base: string, tracking: Tracking | undefined): string {
  return trackingTagValue(tracking) ? `${base}${TRACKING_SET_SUFFIX}` : base;
}

/** Every set a send may name: what SendEmail is granted on. */
export function configurationSetsOf(base: string): string[] {
  return [base, configurationSetFor(base, { opens: true, clicks: true })];
}

/** `<a …>` tags, not `<abbr>` or `<area>`. */
const ANCHOR = /<a(?=[\s>])/gi;

/** The HTML SES should send: links kept as they are unless clicks are tracked (SES honours `ses:no-track`). */
export function trackedHtml(html: string, tracking: Tracking | undefined): string {
  return tracking?.opens && !tracking.clicks ? html.replace(ANCHOR, '<a ses:no-track') : html;
}

/** The tag value naming what a message tracks (`opens`, `clicks`, `opens-clicks`), read back from SES's notifications; undefined for nothing. */
export function trackingTagValue(tracking: Tracking | undefined): string | undefined {
  return [tracking?.opens ? 'opens' : '', tracking?.clicks ? 'clicks' : ''].filter(Boolean).join('-') || undefined;
}

/** Whether a notification of `kind` counts for a message tagged `tagValue` (an untagged message tracked nothing of its own asking). */
export function tracks(tagValue: string | undefined, kind: 'opens' | 'clicks'): boolean {
  return tagValue?.split('-').includes(kind) ?? false;
}
