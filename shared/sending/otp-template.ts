/**
 * The default OTP email (docs/api.md, "POST /api/otp/send"): Portuguese, a title, a line naming the
 * app, the code large and letter-spaced, the expiry when given, and a security
 * notice. Written in the template language and rendered like any send's
 * content, so variables are escaped the same way. Table layout and inline
 * styles only: Gmail drops <style> in some clients, Outlook ignores max-width.
 */

/** Rendered with `appName` as a variable, so an app name is never read as template syntax. */
export const DEFAULT_OTP_SUBJECT = '{{appName}} - Seu código de verificação';

const FONT = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";
const CODE_FONT = "font-family:'Courier New',Courier,monospace;";

export const DEFAULT_OTP_TEMPLATE = `<!DOCTYPE html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="x-apple-disable-message-reformatting">
<title>Seu código de verificação</title>
</head>
<body style="margin:0;padding:0;width:100%;background-color:#f3f4f6;">
<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" bgcolor="#f3f4f6" style="width:100%;border-collapse:collapse;background-color:#f3f4f6;">
<tr><td align="center" style="padding:32px 16px;">
<!--[if mso]><table role="presentation" cellpadding="0" cellspacing="0" border="0" width="480" align="center"><tr><td><![endif]-->
<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" bgcolor="#ffffff" style="width:100%;max-width:480px;margin:0 auto;border-collapse:collapse;background-color:#ffffff;border-radius:8px;">
<tr><td style="padding:32px 32px 8px 32px;${FONT}font-size:24px;font-weight:bold;line-height:1.3;color:#111827;">
<h1 style="margin:0;${FONT}font-size:24px;font-weight:bold;color:#111827;">Seu código de verificação</h1>
</td></tr>
<tr><td style="padding:8px 32px 24px 32px;${FONT}font-size:16px;line-height:1.6;color:#374151;">
<p style="margin:0;">Use o código abaixo para continuar no {{appName}}.</p>
</td></tr>
<tr><td align="center" style="padding:0 32px 24px 32px;">
<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:separate;">
<tr><td align="center" bgcolor="#f3f4f6" style="padding:16px 24px;background-color:#f3f4f6;border-radius:6px;${CODE_FONT}font-size:36px;font-weight:bold;letter-spacing:10px;color:#111827;">
<p style="margin:0;">{{code}}</p>
</td></tr>
</table>
</td></tr>
{{#if expiresInMinutes}}<tr><td style="padding:0 32px 16px 32px;${FONT}font-size:14px;line-height:1.6;color:#374151;">
<p style="margin:0;">Este código expira em {{expiresInMinutes}} {% if expiresInMinutes == 1 %}minuto{% else %}minutos{% endif %}.</p>
</td></tr>
{{/if}}<tr><td style="padding:8px 32px 32px 32px;${FONT}font-size:13px;line-height:1.6;color:#6b7280;border-top:1px solid #e5e7eb;">
<p style="margin:16px 0 0 0;">Se você não solicitou este código, ignore este e-mail. Nunca compartilhe este código com ninguém: nossa equipe nunca pedirá por ele.</p>
</td></tr>
</table>
<!--[if mso]></td></tr></table><![endif]-->
</td></tr>
</table>
</body>
</html>`;
