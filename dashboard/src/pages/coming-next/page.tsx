/** Broadcasts, Templates, Audiences and Forms: their pages come with the content tools; the API already does it all. */
import { useLocation } from '../../router.ts';
import { PageHeader } from '../../ui/page.tsx';

const TITLES: Record<string, string> = { '/broadcasts': 'Broadcasts', '/templates': 'Templates', '/audiences': 'Audiences', '/forms': 'Forms' };

export default function ComingNextPage() {
  const { path } = useLocation();
  const title = TITLES[path] ?? 'Coming next';
  return (
    <>
      <PageHeader title={title} />
      <p>
        The {title.toLowerCase()} page is coming next. Until then, everything it will do is in the API: see the <a href="/docs">API reference</a>.
      </p>
    </>
  );
}
