/**
 * The template's components in order, as a list to choose one from and to
 * reorder: dragged with a pointer, or by keyboard with the row's drag handle
 * (Enter, then the arrow keys, then Enter: React Aria's accessible drag and
 * drop, announced to screen readers). The chosen one's fields show below.
 */
import { Button } from 'react-aria-components/Button';
import { GridList, GridListItem } from 'react-aria-components/GridList';
import { useDragAndDrop } from 'react-aria-components/useDragAndDrop';
import { summaryOf, type DraftComponent } from './draft.ts';

export function ComponentList(props: {
  components: readonly DraftComponent[];
  selected: string | undefined;
  onSelect: (id: string) => void;
  onReorder: (ids: string[], target: string, position: 'before' | 'after') => void;
}) {
  const { dragAndDropHooks } = useDragAndDrop({
    getItems: (keys) => [...keys].map((key) => ({ 'text/plain': String(key) })),
    onReorder: (event) => {
      if (event.target.dropPosition === 'on') return;
      props.onReorder([...event.keys].map(String), String(event.target.key), event.target.dropPosition);
    },
  });
  return (
    <GridList
      aria-label="Components, in order"
      className="component-list"
      items={props.components}
      selectionMode="single"
      disallowEmptySelection
      selectedKeys={props.selected ? [props.selected] : []}
      onSelectionChange={(keys) => {
        const [first] = keys === 'all' ? [] : [...keys];
        if (first !== undefined) props.onSelect(String(first));
      }}
      dragAndDropHooks={dragAndDropHooks}
    >
      {(component) => (
        <GridListItem id={component.id} textValue={summaryOf(component)} className="component-row">
          <Button slot="drag" className="drag-handle" aria-label={`Drag ${summaryOf(component)}`}>
            <span aria-hidden="true">⠿</span>
          </Button>
          <span className="component-summary">{summaryOf(component)}</span>
        </GridListItem>
      )}
    </GridList>
  );
}
