/**
 * A link within the dashboard: a real `<a href>` (open in a new tab, copy the
 * address, read by screen readers as a link), followed without reloading the
 * page when clicked plainly.
 */
import type { AnchorHTMLAttributes } from 'react';
import { appHref, navigate } from '../router.ts';

export function AppLink({ href, onClick, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  return (
    <a
      {...props}
      href={appHref(href)}
      onClick={(event) => {
        onClick?.(event);
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      }}
    />
  );
}
