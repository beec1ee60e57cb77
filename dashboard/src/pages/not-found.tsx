/** An address the dashboard has no page for, or one the person's role does not open. */
import { Link } from 'react-aria-components';
import { PageHeader } from '../ui/page.tsx';

export default function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>There is no page at this address, or it is not open to your role in this account.</p>
      <p>
        <Link href="/">Go to the overview</Link>
      </p>
    </>
  );
}
