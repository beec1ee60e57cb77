/**
 * The deployment's mail to people: the sign-in code and the invitation to a
 * team. Plain words and a table-free layout: each is a few lines of text.
 * Neither carries a link that signs anyone in: the code is typed into the
 * dashboard, the invitation only says where it is.
 */
import { escapeHtml } from '#shared/platform/html.ts';
import { PRODUCT_NAME } from '#shared/platform/product.ts';
import { publicBase } from '#shared/platform/public-urls.ts';
import type { ServiceEmail } from '#shared/sending/service-mail.ts';

/** Where the dashboard is served: the deployment's public base URL, `/app/`. */
export function dashboardUrl(): string {
  return `${publicBase()}/app/`;
}

const FONT = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";

function page(title: string, paragraphs: string[]): string {
  const body = paragraphs.map((paragraph) => `<p style="margin:0 0 16px 0;${FONT}font-size:16px;line-height:1.6;color:#111827;">${paragraph}</p>`).join('\n');
  return `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body style="margin:0;padding:32px 16px;background-color:#ffffff;">\n${body}\n</body>\n</html>`;
}

/** The code, its lifetime, and what to do when it was not asked for. */
export function signInCodeEmail(to: string, code: string, validMinutes: number): ServiceEmail {
  const subject = `Your ${PRODUCT_NAME} sign-in code`;
  const lines = [
    `Your code to sign in to ${PRODUCT_NAME}:`,
    `<strong style="${FONT}font-size:28px;letter-spacing:6px;">${escapeHtml(code)}</strong>`,
    `It works once, for ${validMinutes} minutes. If you did not ask for it, ignore this email: nobody can sign in without it.`,
  ];
  return {
    to,
    subject,
    html: page(subject, lines),
    text: `Your code to sign in to ${PRODUCT_NAME}: ${code}\n\nIt works once, for ${validMinutes} minutes. If you did not ask for it, ignore this email: nobody can sign in without it.\n`,
  };
}

/** Who added the address to which account, and where to sign in. */
export function invitationEmail(to: string, accountName: string, role: string): ServiceEmail {
  const url = dashboardUrl();
  const subject = `You were added to ${accountName} on ${PRODUCT_NAME}`;
  const lines = [
    `You were added to <strong>${escapeHtml(accountName)}</strong> on ${PRODUCT_NAME}, as ${escapeHtml(role)}.`,
    `Sign in at <a href="${escapeHtml(url)}">${escapeHtml(url)}</a> with this address: a code will be emailed to you.`,
  ];
  return {
    to,
    subject,
    html: page(subject, lines),
    text: `You were added to ${accountName} on ${PRODUCT_NAME}, as ${role}.\n\nSign in at ${url} with this address: a code will be emailed to you.\n`,
  };
}
