/**
 * The hosted form page (`/f/<slug>`), the page a plain form post gets back,
 * and the double opt-in confirmation page.
 *
 * The form page is one self-contained document: inline CSS from the form's
 * appearance, a small inline script (allowed by its hash in the CSP, nothing
 * else runs) that posts JSON and shows the answer in place. Without script
 * it is an ordinary form post to the same submit endpoint, which then answers
 * with HTML (see `wantsHtml`). Every value from the form or the submitter is
 * escaped; appearance values reach the CSS only when they have a safe shape.
 */
import { createHash } from 'node:crypto';
import type { FormFieldRecord, FormRecord } from './store.ts';
import { FORM_DEFAULTS, viewPublishedForm } from './service.ts';
import { verifyConfirmationToken } from './confirmation-links.ts';
import { confirmSubscription } from './confirmation.ts';
import type { FieldError } from './submissions.ts';
import { HONEYPOT_FIELD } from './published.ts';
import { escapeHtml } from '#shared/platform/html.ts';
import { NotFoundError } from '#shared/platform/errors.ts';
import { FORM_MEDIA_TYPE, mediaTypeOf } from '#shared/platform/http/middleware.ts';
import type { BodyFormat } from '#shared/platform/http/body-format.ts';
import { html, type Reply } from '#shared/platform/http/reply.ts';
import { BUTTON_VARIANTS, CSS_COLOR, CSS_FONT_FAMILY, SUBMISSION_LIMITS } from './schema.ts';
import { htmlPage } from '#shared/platform/http/page-layout.ts';

/** A form post's body is text; JSON's is typed. */
export function bodyFormat(headers: Record<string, string>): BodyFormat {
  return mediaTypeOf(headers['content-type']) === FORM_MEDIA_TYPE ? 'form' : 'json';
}

/**
 * A browser's plain form post (no script) gets a page back; everything else,
 * and a form post whose Accept asks for JSON, gets the JSON envelope.
 */
export function wantsHtml(headers: Record<string, string>): boolean {
  return bodyFormat(headers) === 'form' && !/\bapplication\/json\b/i.test(headers.accept ?? '');
}

/** A stored appearance value goes into CSS only if it still has the shape the schema allows; otherwise the default. */
function cssValue(value: string, allowed: RegExp, fallback: string): string {
  return allowed.test(value) ? value : fallback;
}

function styleOf(form: FormRecord): string {
  const { appearance } = form;
  const defaults = FORM_DEFAULTS.appearance;
  const background = cssValue(appearance.backgroundColor, CSS_COLOR, defaults.backgroundColor);
  const primary = cssValue(appearance.primaryColor, CSS_COLOR, defaults.primaryColor);
  const font = cssValue(appearance.fontFamily, CSS_FONT_FAMILY, defaults.fontFamily);
  return `
:root{--bg:${background};--primary:${primary};--font:${font}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:#18181b;font:16px/1.5 var(--font)}
main{max-width:36rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:10px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 .5rem}
.description{margin:0 0 1.5rem;color:#3f3f46;white-space:pre-line}
.field{margin:0 0 1.25rem;padding:0;border:0;min-width:0}
label,legend{display:block;font-weight:600;margin:0 0 .35rem;padding:0}
.choice{display:flex;align-items:center;gap:.5rem;font-weight:400;margin:.25rem 0;min-height:44px}
.choice input{width:1.25rem;height:1.25rem;margin:0;accent-color:var(--primary)}
.rating{display:flex;flex-wrap:wrap;gap:.5rem}
.rating .choice{border:1px solid #d4d4d8;border-radius:6px;padding:0 .75rem}
.req{color:#b91c1c;margin-left:.15rem}
input[type=text],input[type=email],input[type=tel],input[type=number],input[type=date],select,textarea{width:100%;font:inherit;padding:.65rem .75rem;border:1px solid #a1a1aa;border-radius:6px;background:#fff;color:inherit;min-height:44px}
textarea{min-height:8rem;resize:vertical}
input[type=file]{font:inherit}
input:focus-visible,select:focus-visible,textarea:focus-visible,button:focus-visible{outline:3px solid var(--primary);outline-offset:2px}
[aria-invalid=true]{border-color:#b91c1c}
.error{color:#b91c1c;margin:.35rem 0 0;font-size:.95rem}
.notice{padding:.85rem 1rem;border-radius:6px;background:#ecfdf5;color:#065f46;margin:0 0 1rem}
.notice.error{background:#fef2f2;color:#991b1b}
.hp{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}
button{font:inherit;font-weight:600;padding:.75rem 1.4rem;border-radius:6px;cursor:pointer;min-height:44px;border:2px solid var(--primary)}
.btn-filled{background:var(--primary);color:#fff}
.btn-outline{background:transparent;color:var(--primary)}
.btn-ghost{background:transparent;color:var(--primary);border-color:transparent}
button[disabled]{opacity:.6;cursor:progress}
@media (max-width:38rem){main{margin:0;border-radius:0;min-height:100vh;box-shadow:none}}
`.trim();
}

/**
 * Posts the form as JSON and shows the answer in place: the success message,
 * or each field's error beside it. Native validation (required, type, min,
 * max, pattern) has run before `submit` fires; a required checkbox group,
 * which HTML cannot express, is checked here.
 */
const SCRIPT = `(() => {
  const form = document.getElementById('postlane-form');
  const status = document.getElementById('form-status');
  if (!form || !status || !window.fetch) return;
  const fields = Array.from(form.querySelectorAll('[data-field]'));
  const inputsOf = (field) => Array.from(field.querySelectorAll('input,select,textarea'));
  const readable = (field, message) => {
    const text = message.startsWith(field) ? message.slice(field.length).replace(/^:?\\s*/, '') : message;
    return text.charAt(0).toUpperCase() + text.slice(1);
  };
  const show = (path, message) => {
    const id = path.split(/[.[]/)[0];
    const field = fields.find((candidate) => candidate.dataset.field === id);
    const box = document.getElementById('f-' + id + '-error');
    if (!field || !box) return false;
    box.textContent = readable(path, message);
    box.hidden = false;
    inputsOf(field).forEach((input) => input.setAttribute('aria-invalid', 'true'));
    return true;
  };
  const clear = () => {
    form.querySelectorAll('.error').forEach((box) => { box.textContent = ''; box.hidden = true; });
    form.querySelectorAll('[aria-invalid]').forEach((input) => input.removeAttribute('aria-invalid'));
    status.hidden = true;
    status.className = 'notice';
  };
  const announce = (message, isError) => {
    status.textContent = message;
    status.className = isError ? 'notice error' : 'notice';
    status.hidden = false;
    status.focus();
  };
  const readFile = (file) => new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',')[1] || '');
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
  const valueOf = async (field) => {
    const type = field.dataset.type;
    const inputs = inputsOf(field);
    if (type === 'checkbox') return inputs.filter((input) => input.checked).map((input) => input.value);
    if (type === 'radio' || type === 'rating') {
      const chosen = inputs.find((input) => input.checked);
      if (!chosen) return undefined;
      return type === 'rating' ? Number(chosen.value) : chosen.value;
    }
    const input = inputs[0];
    if (type === 'file') {
      const file = input.files && input.files[0];
      return file ? { filename: file.name, contentType: file.type || 'application/octet-stream', content: await readFile(file) } : undefined;
    }
    if (input.value.trim() === '') return undefined;
    return type === 'number' ? Number(input.value) : input.value;
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear();
    const unticked = fields.filter((field) => field.dataset.type === 'checkbox' && field.dataset.required === 'true' && !field.querySelector('input:checked'));
    unticked.forEach((field) => show(field.dataset.field, 'Choose at least one option'));
    if (unticked.length > 0) return;
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const body = {};
      for (const field of fields) {
        const value = await valueOf(field);
        if (value !== undefined && !(Array.isArray(value) && value.length === 0)) body[field.dataset.field] = value;
      }
      const trap = form.elements.namedItem('${HONEYPOT_FIELD}');
      if (trap && trap.value) body['${HONEYPOT_FIELD}'] = trap.value;
      const response = await fetch(form.action, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
      const result = await response.json();
      if (result.success) {
        form.hidden = true;
        announce(result.message, false);
        return;
      }
      const errors = result.errors || (result.field ? [{ field: result.field, message: result.message }] : []);
      const shown = errors.map((error) => show(error.field, error.message)).some(Boolean);
      if (shown) form.querySelector('[aria-invalid=true]').focus();
      else announce(result.message, true);
    } catch (error) {
      announce('The form could not be sent. Check your connection and try again.', true);
    } finally {
      button.disabled = false;
    }
  });
})();`;

const SCRIPT_HASH = `sha256-${createHash('sha256').update(SCRIPT).digest('base64')}`;

/**
 * - CSP: only the page's own script and styles; fetches and posts go back to
 *   this origin (the submit endpoint); embedding in other sites' frames is allowed;
 * - no-store: each load counts a view, so no cache may answer for it.
 * Not @middy/http-security-headers: its defaults send X-Frame-Options DENY, which would stop
 * the embedding, and cannot write this CSP's directive order (pinned by test/forms/hosted-page.test.ts).
 */
const FORM_PAGE_HEADERS = {
  'Content-Security-Policy': `default-src 'none'; script-src '${SCRIPT_HASH}'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; base-uri 'none'`,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
} as const;

/** Form values are short strings from a closed set (field ids are letters, digits, `_`, `-`): safe in ids, escaped anyway. */
const inputId = (field: FormFieldRecord) => `f-${escapeHtml(field.id)}`;
const errorId = (field: FormFieldRecord) => `f-${escapeHtml(field.id)}-error`;

/** A field error without the field's id in front, as a sentence: `email must be a valid email address` gives `Must be a valid email address`. */
export function readableError(error: FieldError): string {
  const text = error.message.startsWith(error.field) ? error.message.slice(error.field.length).replace(/^:?\s*/, '') : error.message;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

interface FieldState {
  value: unknown;
  error?: string;
}

function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? [value] : [];
}

/** One option of a group, labelled by its own value; a required radio group needs `required` on one of its inputs. */
function choice(
  field: FormFieldRecord,
  type: 'checkbox' | 'radio',
  value: string,
  index: number,
  checked: boolean,
  describedBy: string,
  invalid: string,
): string {
  const required = type === 'radio' && field.required && index === 0 ? ' required' : '';
  return `<label class="choice"><input type="${type}" name="${escapeHtml(field.id)}" value="${escapeHtml(value)}"${checked ? ' checked' : ''}${required}${describedBy}${invalid}> ${escapeHtml(value)}</label>`;
}

function control(field: FormFieldRecord, state: FieldState): string {
  const name = escapeHtml(field.id);
  const common = `id="${inputId(field)}" name="${name}"${field.required ? ' required' : ''}${field.placeholder ? ` placeholder="${escapeHtml(field.placeholder)}"` : ''}`;
  const describedBy = ` aria-describedby="${errorId(field)}"`;
  const invalid = state.error ? ' aria-invalid="true"' : '';
  const value = escapeHtml(textOf(state.value));
  switch (field.type) {
    case 'text':
      return `<input type="text" ${common} maxlength="${SUBMISSION_LIMITS.text}" value="${value}"${describedBy}${invalid}>`;
    case 'email':
      return `<input type="email" ${common} autocomplete="email" value="${value}"${describedBy}${invalid}>`;
    case 'phone':
      // Browsers compile `pattern` with the `v` flag, where ( ) . - inside a class must be escaped or the pattern is ignored.
      return `<input type="tel" ${common} autocomplete="tel" pattern="\\+?[0-9 \\(\\)\\.\\-]{3,32}" value="${value}"${describedBy}${invalid}>`;
    case 'number':
      return `<input type="number" ${common} step="any" value="${value}"${describedBy}${invalid}>`;
    case 'date':
      return `<input type="date" ${common} value="${value}"${describedBy}${invalid}>`;
    case 'textarea':
      return `<textarea ${common} maxlength="${SUBMISSION_LIMITS.textarea}"${describedBy}${invalid}>${value}</textarea>`;
    case 'select':
      return (
        `<select id="${inputId(field)}" name="${name}"${field.required ? ' required' : ''}${describedBy}${invalid}>` +
        `<option value="">${escapeHtml(field.placeholder ?? 'Choose…')}</option>` +
        (field.options ?? [])
          .map((option) => `<option value="${escapeHtml(option)}"${textOf(state.value) === option ? ' selected' : ''}>${escapeHtml(option)}</option>`)
          .join('') +
        '</select>'
      );
    case 'file':
      return `<input type="file" ${common}${describedBy}${invalid}><noscript><p class="error">Attaching a file needs JavaScript.</p></noscript>`;
    case 'checkbox':
    case 'radio': {
      const chosen = listOf(state.value);
      return (field.options ?? [])
        .map((option, index) => choice(field, field.type as 'checkbox' | 'radio', option, index, chosen.includes(option), describedBy, invalid))
        .join('\n');
    }
    case 'rating': {
      const chosen = textOf(state.value);
      const scale = Array.from({ length: SUBMISSION_LIMITS.ratingMax - SUBMISSION_LIMITS.ratingMin + 1 }, (_, index) =>
        String(SUBMISSION_LIMITS.ratingMin + index),
      );
      return `<div class="rating">${scale.map((value, index) => choice(field, 'radio', value, index, chosen === value, describedBy, invalid)).join('')}</div>`;
    }
  }
}

/** Groups of choices are a fieldset with a legend; single controls a label tied to the input. */
function fieldMarkup(field: FormFieldRecord, state: FieldState): string {
  const grouped = field.type === 'checkbox' || field.type === 'radio' || field.type === 'rating';
  const marker = field.required ? '<span class="req" aria-hidden="true">*</span>' : '';
  const caption = `${escapeHtml(field.label)}${marker}`;
  const error = `<p class="error" id="${errorId(field)}"${state.error ? '' : ' hidden'}>${escapeHtml(state.error ?? '')}</p>`;
  const data = `data-field="${escapeHtml(field.id)}" data-type="${field.type}"${field.required ? ' data-required="true"' : ''}`;
  return grouped
    ? `<fieldset class="field" ${data}><legend>${caption}</legend>\n${control(field, state)}\n${error}</fieldset>`
    : `<div class="field" ${data}><label for="${inputId(field)}">${caption}</label>\n${control(field, state)}\n${error}</div>`;
}

export interface FormPageOptions {
  /** Where the form posts; absent: back to the page's own address (the submit endpoint re-showing it). */
  action?: string;
  values?: Record<string, unknown>;
  errors?: FieldError[];
  /** A message over the form: the success message (the form is then not shown), or an error. */
  notice?: { text: string; error?: boolean };
  status?: number;
}

/** The whole hosted page of a form. */
export function formPage(form: FormRecord, options: FormPageOptions = {}): Reply {
  const errors = new Map((options.errors ?? []).map((error) => [error.field.split(/[.[]/)[0]!, readableError(error)]));
  const succeeded = options.notice !== undefined && !options.notice.error;
  const notice = options.notice
    ? `<div id="form-status" class="notice${options.notice.error ? ' error' : ''}" role="status" aria-live="polite" tabindex="-1">${escapeHtml(options.notice.text)}</div>`
    : '<div id="form-status" class="notice" role="status" aria-live="polite" tabindex="-1" hidden></div>';
  const button = form.buttonCustomization;
  const variant = (BUTTON_VARIANTS as readonly string[]).includes(button.variant) ? button.variant : FORM_DEFAULTS.buttonCustomization.variant;
  const fields = form.fields
    .map((field) => fieldMarkup(field, { value: options.values?.[field.id], ...(errors.has(field.id) ? { error: errors.get(field.id)! } : {}) }))
    .join('\n');
  const body = `<form id="postlane-form" method="post"${options.action ? ` action="${escapeHtml(options.action)}"` : ''}${succeeded ? ' hidden' : ''}>
${fields}
<div class="hp" aria-hidden="true"><label for="f-${HONEYPOT_FIELD}">Leave this field empty</label><input type="text" id="f-${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></div>
<button type="submit" class="btn-${variant}">${escapeHtml(button.text)}</button>
</form>`;
  const markup = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(form.title)}</title>
<style>${styleOf(form)}</style>
</head>
<body>
<main>
<h1>${escapeHtml(form.title)}</h1>
${form.description ? `<p class="description">${escapeHtml(form.description)}</p>` : ''}
${notice}
${body}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
  const reply = html(markup, options.status ?? 200);
  return { ...reply, headers: { ...reply.headers, ...FORM_PAGE_HEADERS } };
}

export function formNotFoundPage(): Reply {
  return htmlPage(
    'Form not found',
    `<h1>This form is not available</h1>
<p>The address may be mistyped, or the form is no longer published.</p>`,
    404,
  );
}

/** GET /f/{slug}: the published form, counting a view; a plain 404 page otherwise. */
export async function hostedForm(slug: string, countsView = true): Promise<Reply> {
  try {
    const form = await viewPublishedForm(slug, countsView);
    // `/f/<slug>` → `/api/forms/<slug>/submit`, relative so it works under any base address.
    return formPage(form, { action: `../api/forms/${form.slug}/submit` });
  } catch (error) {
    if (error instanceof NotFoundError) return formNotFoundPage();
    throw error;
  }
}

const INVALID_LINK = [
  'Link not valid',
  '<h1>This link is not valid</h1>\n<p>It may have been cut short when it was copied. Open the link from the email again.</p>\n<p>Nothing was changed.</p>',
  400,
] as const;

const CONFIRMATION_PAGES = {
  confirmed: ['Subscription confirmed', '<h1>You are subscribed</h1>\n<p>Thank you for confirming your subscription.</p>', 200],
  'already-subscribed': ['Subscription confirmed', '<h1>You are already subscribed</h1>\n<p>This subscription was confirmed before; nothing changed.</p>', 200],
  'not-pending': [
    'Nothing to confirm',
    '<h1>Nothing to confirm</h1>\n<p>This subscription is not awaiting confirmation any more, so nothing changed.</p>',
    409,
  ],
  invalid: INVALID_LINK,
} as const;

/**
 * GET /confirm/{token}: asks first and changes nothing, because mail scanners
 * and link previews open links. The button is a plain form post back to this
 * address, so it works without script.
 */
export async function confirmationRequestPage(token: string): Promise<Reply> {
  const claims = await verifyConfirmationToken(token);
  if (!claims) return htmlPage(...INVALID_LINK);
  return htmlPage(
    'Confirm your subscription',
    `<h1>Confirm your subscription</h1>
<p>Subscribe <strong>${escapeHtml(claims.email)}</strong> to these emails?</p>
<form method="post">
<button type="submit">Confirm subscription</button>
</form>
<p>If you did not sign up, close this page: you will not be subscribed.</p>`,
  );
}

/** POST /confirm/{token}: the confirmation page's button; the signed link alone decides, whatever the body. */
export async function confirmationPage(token: string, now: Date): Promise<Reply> {
  const [title, body, status] = CONFIRMATION_PAGES[await confirmSubscription(token, now)];
  return htmlPage(title, body, status);
}
