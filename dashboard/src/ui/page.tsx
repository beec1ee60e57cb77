/**
 * What every page is made of: its heading (focused on arrival, so a screen
 * reader announces the new page), the states of a query (loading, refused,
 * empty) worded for a person, and plain tables for lists.
 */
import type { UseQueryResult } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import { asApiError, describeError } from '../api/errors.ts';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Postlane`;
    // Only when arriving by navigation: the first load keeps focus where the browser puts it.
    if (document.activeElement && document.activeElement !== document.body) heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <div className="page-header">
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children ? <div className="page-actions">{children}</div> : null}
    </div>
  );
}

/** Renders `children(data)` once the query has data; meanwhile a polite status, and a readable refusal with a retry. */
export function QueryView<T>({ query, label, children }: { query: UseQueryResult<T>; label: string; children: (data: T) => ReactNode }) {
  // A refresh that fails keeps what was shown, under the refusal.
  const refusal = query.isError ? (
    <div className="notice notice-error" role="alert">
      <p>
        {label} could not be loaded: {describeError(asApiError(query.error))}
      </p>
      <button type="button" className="button button-secondary" onClick={() => void query.refetch()}>
        Try again
      </button>
    </div>
  ) : null;
  if (query.data !== undefined) {
    return (
      <>
        {refusal}
        {children(query.data)}
      </>
    );
  }
  if (refusal) return refusal;
  return <Loading label={label.toLowerCase()} />;
}

/** What a page shows while `label` ("the audience") loads. */
export function Loading({ label }: { label: string }) {
  return (
    <p className="loading" role="status">
      Loading {label}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section className="section" aria-labelledby={id}>
      <div className="section-header">
        <h2 id={id}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** `2 Jun 2026, 14:05` in the reader's time zone; the exact ISO time in the element for copying. `absent`: what no time reads as. */
export function Time({ value, absent = 'never' }: { value: string | null | undefined; absent?: string }) {
  if (!value) return <span className="muted">{absent}</span>;
  const date = new Date(value);
  return <time dateTime={value}>{date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}</time>;
}

export function Badge({ tone, children }: { tone: 'good' | 'bad' | 'warn' | 'neutral'; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/**
 * A table that scrolls sideways on a narrow screen: focusable and named, so
 * a keyboard can scroll it too (axe's scrollable-region-focusable).
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group, not a fieldset: it holds a table, not form controls.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard (WCAG 2.1.1).
    <div className="table-wrap" role="group" tabIndex={0} aria-label={label}>
      {children}
    </div>
  );
}
