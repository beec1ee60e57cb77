/** The fallbacks every page shares: while its code or data loads, and when it fails to render. */
import { Component, type ReactNode } from 'react';
import { appHref } from '../router.ts';

export function Splash() {
  return (
    <p className="loading" role="status">
      Loading…
    </p>
  );
}

/** Whatever a page throws while rendering ends here: a sentence and a way on, never a blank page or a stack. */
export class PageBoundary extends Component<{ children: ReactNode; resetKey: string }, { failed: boolean; key: string }> {
  override state = { failed: false, key: this.props.resetKey };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: { failed: boolean; key: string }) {
    return props.resetKey === state.key ? null : { failed: false, key: props.resetKey };
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="notice notice-error" role="alert">
        <p>This page could not be shown. Reload the page to try again; if it happens again, the service's log has the details.</p>
        <a href={appHref('/')}>Go to the overview</a>
      </div>
    );
  }
}
