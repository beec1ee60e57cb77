/**
 * A destructive action behind a confirmation: an alert dialog (focus trapped,
 * Escape cancels, focus returns to the button) that names what will happen.
 * The refusal, if the API refuses, is shown inside the dialog.
 */
import { useState, type ReactNode } from 'react';
import { Dialog, DialogTrigger } from 'react-aria-components/Dialog';
import { Heading } from 'react-aria-components/Heading';
import { Modal } from 'react-aria-components/Modal';
import { asApiError, describeError, type ApiError } from '../api/errors.ts';
import { Action } from './fields.tsx';

export function ConfirmAction(props: {
  /** The button that opens the dialog: "Delete", "Revoke". */
  label: string;
  /** Names the thing for screen readers when several such buttons share a page: "Revoke key Production". */
  ariaLabel?: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** Until the dialog's own extra confirmation is given (a box ticked). */
  isConfirmDisabled?: boolean;
  onConfirm: () => Promise<unknown>;
}) {
  const [error, setError] = useState<ApiError | undefined>();
  const [pending, setPending] = useState(false);
  return (
    <DialogTrigger onOpenChange={() => setError(undefined)}>
      <Action variant="danger" {...(props.ariaLabel ? { 'aria-label': props.ariaLabel } : {})}>
        {props.label}
      </Action>
      <Modal className="modal" isDismissable>
        <Dialog role="alertdialog" className="dialog">
          {({ close }) => (
            <>
              <Heading slot="title">{props.title}</Heading>
              <div className="dialog-body">{props.children}</div>
              {error ? (
                <p className="notice notice-error" role="alert">
                  {describeError(error)}
                </p>
              ) : null}
              <div className="dialog-actions">
                <Action variant="secondary" onPress={close} autoFocus>
                  Cancel
                </Action>
                <Action
                  variant="danger"
                  busy={pending}
                  isDisabled={props.isConfirmDisabled ?? false}
                  onPress={async () => {
                    setPending(true);
                    try {
                      await props.onConfirm();
                      close();
                    } catch (failure) {
                      setError(asApiError(failure));
                    } finally {
                      setPending(false);
                    }
                  }}
                >
                  {props.confirmLabel}
                </Action>
              </div>
            </>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  );
}
