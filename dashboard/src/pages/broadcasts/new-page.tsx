/** A new broadcast: the composer, empty; saving makes the draft and opens its page. */
import { PageHeader, Section } from '../../ui/page.tsx';
import { Composer } from './compose.tsx';

export default function NewBroadcastPage() {
  return (
    <>
      <PageHeader title="New broadcast" />
      <Section title="Compose">
        <Composer />
      </Section>
    </>
  );
}
