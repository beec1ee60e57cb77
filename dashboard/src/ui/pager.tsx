/** Back and forth over the numbered pages the API answers (`pagination.page` of `pagination.pages`). */
import { Action } from './fields.tsx';

export interface NumberedPagerProps {
  label: string;
  page: number;
  pages: number;
  /** Shown after the page numbers when given ("· 1,250 in all"). */
  total?: number;
  onPage: (page: number) => void;
  /** The two buttons' names: "Previous" and "Next", or "Newer" and "Older" for a list newest first. */
  names?: readonly [string, string];
  /** Nothing when there is a single page (the lists newest first); a list that shows its total keeps it. */
  hideSinglePage?: boolean;
}

export function NumberedPager({ label, page, pages, total, onPage, names = ['Previous', 'Next'], hideSinglePage = false }: NumberedPagerProps) {
  if (hideSinglePage && pages <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <Action isDisabled={page <= 1} onPress={() => onPage(page - 1)}>
        {names[0]}
      </Action>
      <span className="muted">
        Page {page.toLocaleString()} of {Math.max(1, pages).toLocaleString()}
        {total === undefined ? null : ` · ${total.toLocaleString()} in all`}
      </span>
      <Action isDisabled={page >= pages} onPress={() => onPage(page + 1)}>
        {names[1]}
      </Action>
    </nav>
  );
}

/** The page number of the address (`?page=3`), 1 when absent or not a positive whole number. */
export function pageOf(query: URLSearchParams): number {
  const page = Number(query.get('page'));
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** The buttons' names over a list newest first. */
export const NEWEST_FIRST = ['Newer', 'Older'] as const;
