/**
 * A builder page at `/<list>/new` that becomes `/<list>/<id>` when it creates
 * its item: the builder made here keeps its place (and what was typed while
 * it saved) as the address changes, while opening another item, or `new`
 * again, gives a fresh one. `builderKey` is the builder's React key.
 */
import { useRef, useState } from 'react';
import { navigate } from '../router.ts';

export function useCreatedHere(id: string, list: string): { builderKey: number; carried: boolean; onCreated: (id: string) => void } {
  const created = useRef<string>(undefined);
  const [slot, setSlot] = useState({ id, key: 0 });
  if (slot.id !== id) setSlot({ id, key: id === created.current ? slot.key : slot.key + 1 });
  return {
    builderKey: slot.key,
    carried: id === created.current,
    onCreated: (newId) => {
      created.current = newId;
      navigate(`/${list}/${encodeURIComponent(newId)}`, { replace: true });
    },
  };
}
