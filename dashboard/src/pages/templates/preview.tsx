/**
 * The email as it will look, rendered by the API (POST /api/templates/render)
 * a moment after the person stops typing, in a frame that runs nothing:
 * `sandbox=""` (no script, no form, a unique origin that cannot reach the
 * dashboard's cookies or DOM) and a CSP of its own that loads nothing from
 * anywhere (images only as data: URLs: a remote image shows as a box with
 * its alt text). Desktop (the template's full width) or phone (375 px).
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ToggleButton } from 'react-aria-components/ToggleButton';
import { ToggleButtonGroup } from 'react-aria-components/ToggleButtonGroup';
import { api, call } from '../../api/client.ts';
import { asApiError, describeError } from '../../api/errors.ts';
import { designBody, type Draft } from './draft.ts';
import { withImagePlaceholders } from './image-placeholders.ts';

const DEBOUNCE_MS = 400;

/** Read by the browser before anything in the email: nothing remote, no script, only inline styles and data: images. */
const FRAME_POLICY = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`;

export function framed(email: string): string {
  const html = withImagePlaceholders(email);
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => `${head}${FRAME_POLICY}`) : `${FRAME_POLICY}${html}`;
}

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export type RenderedDraft = { subject: string; html: string; variables: string[] };

/** The draft rendered with the sample values, debounced; the last good rendering stays while a newer one fails. */
export function useRenderedDraft(draft: Draft, samples: Record<string, string>) {
  const body = useDebounced(JSON.stringify({ ...designBody(draft), variables: samples }), DEBOUNCE_MS);
  return useQuery({
    // The API requires a subject: until there is one, asking would only show its refusal.
    enabled: draft.subject.trim() !== '',
    queryKey: ['templates', 'render', body],
    queryFn: () => call(api.POST('/api/templates/render', { body: JSON.parse(body) })),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    // Each keystroke's rendering is a key of its own: only the recent ones are worth keeping.
    gcTime: 30_000,
  });
}

export function Preview({ rendered }: { rendered: ReturnType<typeof useRenderedDraft> }) {
  const [width, setWidth] = useState<'desktop' | 'phone'>('desktop');
  const data = rendered.data;
  return (
    <div className="preview">
      <div className="preview-bar">
        <ToggleButtonGroup
          aria-label="Preview width"
          className="segmented"
          selectionMode="single"
          disallowEmptySelection
          selectedKeys={[width]}
          onSelectionChange={(keys) => setWidth(([...keys][0] as 'desktop' | 'phone' | undefined) ?? 'desktop')}
        >
          <ToggleButton id="desktop" className="segment">
            Desktop
          </ToggleButton>
          <ToggleButton id="phone" className="segment">
            Phone (375 px)
          </ToggleButton>
        </ToggleButtonGroup>
        <span className="muted" role="status">
          {rendered.isFetching ? 'Updating…' : ''}
        </span>
      </div>
      {rendered.isError ? (
        <p className="notice notice-error" role="alert">
          The preview could not be updated: {describeError(asApiError(rendered.error))}
        </p>
      ) : null}
      {data ? (
        <>
          <p className="preview-subject">
            <span className="muted">Subject:</span> {data.subject}
          </p>
          {/* biome-ignore lint/a11y/useSemanticElements: a group, not a fieldset: it holds a frame, not form controls. */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the frame is wider than a phone: a keyboard must be able to scroll it. */}
          <div className="preview-scroll" role="group" aria-label="Preview of the email" tabIndex={0}>
            <iframe title="Preview of the email" sandbox="" srcDoc={framed(data.html)} className={`preview-frame preview-${width}`} />
          </div>
        </>
      ) : rendered.isFetching ? (
        <p className="loading" role="status">
          Rendering the preview…
        </p>
      ) : (
        <p className="muted">Write a subject to see the preview.</p>
      )}
    </div>
  );
}
