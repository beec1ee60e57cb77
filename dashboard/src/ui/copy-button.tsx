/** Copies a value and says so in a live region, so the confirmation is heard as well as seen. */
import { useState } from 'react';
import { Action } from './fields.tsx';

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      // A browser that refuses the clipboard (no permission, an insecure origin): the value stays on screen to select.
      setState('failed');
    }
    window.setTimeout(() => setState('idle'), 4_000);
  };
  return (
    <span className="copy">
      <Action variant="quiet" aria-label={label} onPress={() => void copy()}>
        Copy
      </Action>
      <span className="copy-status" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy: select the text instead' : ''}
      </span>
    </span>
  );
}
