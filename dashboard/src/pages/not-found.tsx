/** An address the dashboard has no page for, or one the person's role does not open. */
import { AppLink } from '../ui/app-link.tsx';
import { PageHeader } from '../ui/page.tsx';

export default function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>There is no page at this address, or it is not open to your role in this account.</p>
      <p>
        <AppLink href="/">Go to the overview</AppLink>
      </p>
    </>
  );
}
