/**
 * A new secret (an API key's, a webhook's), shown once: the API never shows it
 * again, and the dashboard keeps it only in this component's props, never in
 * storage, the URL or the query cache.
 */
import { CopyButton } from './copy-button.tsx';

export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  return (
    <section className="secret" aria-label={label}>
      <p className="notice notice-warn">
        <strong>Copy this secret now.</strong> It is shown only once: Postlane keeps a hash of it, not the secret itself. If you lose it, make a new one.
      </p>
      <div className="secret-value">
        <code>{secret}</code>
        <CopyButton value={secret} label={`Copy: ${label}`} />
      </div>
      <button type="button" className="button button-secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
