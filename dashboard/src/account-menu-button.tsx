/**
 * The account menu's button. The menu itself (React Aria's Menu, about 35 KB
 * gzipped with its collection and overlay code) loads on first use, not with
 * the Overview: sign-in plus Overview stay within their 150 KB budget.
 * Pointing at or focusing the button starts the load, so the menu is usually
 * there by the time it is pressed.
 */
import { lazy, Suspense, useState } from 'react';
import { Action } from './ui/fields.tsx';
import type { Session } from './session.ts';

const loadMenu = () => import('./account-menu.tsx');
const AccountMenu = lazy(loadMenu);

export function accountButtonLabel(session: Session): string {
  return `Account: ${session.account.name}`;
}

export function AccountMenuButton({ session }: { session: Session }) {
  const [wanted, setWanted] = useState(false);
  const placeholder = (
    <Action
      variant="quiet"
      className="account-button"
      aria-haspopup="menu"
      aria-label={accountButtonLabel(session)}
      onHoverStart={() => void loadMenu()}
      onFocus={() => void loadMenu()}
      onPress={() => setWanted(true)}
    >
      <span aria-hidden="true">{session.account.name} ▾</span>
    </Action>
  );
  if (!wanted) return placeholder;
  return (
    <Suspense fallback={placeholder}>
      <AccountMenu session={session} />
    </Suspense>
  );
}
