/**
 * The account menu: the accounts the person belongs to (switching keeps the
 * session and opens the new account's Overview) and signing out (the session
 * is deleted on the server). Rendered once the button was first pressed, and
 * opened at once, with focus on the button first so that closing the menu
 * returns focus there.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Header } from 'react-aria-components/Header';
import { Menu, MenuItem, MenuSection, MenuTrigger } from 'react-aria-components/Menu';
import { Popover } from 'react-aria-components/Popover';
import { Separator } from 'react-aria-components/Separator';
import { api, call } from './api/client.ts';
import { asApiError, describeError, type ApiError } from './api/errors.ts';
import { accountButtonLabel } from './account-menu-button.tsx';
import { navigate } from './router.ts';
import { endSession, startSession, type Session } from './session.ts';
import { Action } from './ui/fields.tsx';

export default function AccountMenu({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const trigger = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  useEffect(() => {
    trigger.current?.focus();
    setOpen(true);
  }, []);

  const act = async (key: string) => {
    setError(undefined);
    try {
      if (key === 'sign-out') {
        await call(api.DELETE('/api/session'));
        endSession(queryClient);
        navigate('/', { replace: true });
        return;
      }
      const accountId = key.slice('account:'.length);
      if (accountId === session.account.id) return;
      startSession(queryClient, (await call(api.PATCH('/api/session', { body: { accountId } }))).data);
      navigate('/');
    } catch (failure) {
      setError(asApiError(failure));
    }
  };

  return (
    <>
      <MenuTrigger isOpen={open} onOpenChange={setOpen}>
        <Action ref={trigger} variant="quiet" className="account-button" aria-label={accountButtonLabel(session)}>
          <span aria-hidden="true">{session.account.name} ▾</span>
        </Action>
        <Popover placement="bottom end" className="popover">
          <Menu className="menu" onAction={(key) => key === 'sign-out' && void act('sign-out')} aria-label="Account">
            <MenuSection
              selectionMode="single"
              selectedKeys={[`account:${session.account.id}`]}
              disallowEmptySelection
              onSelectionChange={(keys) => {
                const [key] = keys === 'all' ? [] : [...keys];
                if (key !== undefined) void act(String(key));
              }}
            >
              <Header className="menu-header">Signed in as {session.member.email}</Header>
              {session.accounts.map((account) => (
                <MenuItem key={account.id} id={`account:${account.id}`} className="menu-item" textValue={account.name}>
                  {account.name} <span className="muted">({account.role})</span>
                </MenuItem>
              ))}
            </MenuSection>
            <Separator className="menu-separator" />
            <MenuItem id="sign-out" className="menu-item">
              Sign out
            </MenuItem>
          </Menu>
        </Popover>
      </MenuTrigger>
      {error ? (
        <p className="notice notice-error account-error" role="alert">
          {describeError(error)}
        </p>
      ) : null}
    </>
  );
}
