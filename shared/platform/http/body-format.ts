/** Body formats a route accepts: JSON always; HTML form posts where a browser posts without script (RFC 8058 one-click too). */
export type BodyFormat = 'json' | 'form';
