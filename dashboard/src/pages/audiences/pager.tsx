/** "Previous" and "Next" over the numbered pages the API answers (`pagination.page` of `pagination.pages`). */
import { Action } from '../../ui/fields.tsx';

export function NumberedPager(props: { label: string; page: number; pages: number; total: number; onPage: (page: number) => void }) {
  return (
    <nav className="pager" aria-label={props.label}>
      <Action isDisabled={props.page <= 1} onPress={() => props.onPage(props.page - 1)}>
        Previous
      </Action>
      <span className="muted">
        Page {props.page.toLocaleString()} of {Math.max(1, props.pages).toLocaleString()} · {props.total.toLocaleString()} in all
      </span>
      <Action isDisabled={props.page >= props.pages} onPress={() => props.onPage(props.page + 1)}>
        Next
      </Action>
    </nav>
  );
}

/** The page number of the address (`?page=3`), 1 when absent or not a positive whole number. */
export function pageOf(query: URLSearchParams): number {
  const page = Number(query.get('page'));
  return Number.isInteger(page) && page >= 1 ? page : 1;
}
