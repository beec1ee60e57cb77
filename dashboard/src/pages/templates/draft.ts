/**
 * A template as the builder holds it while a person edits: every field as
 * typed (numbers too, so "12a" stays on screen with its error rather than
 * vanishing), turned into the API's body only to preview or save.
 */
import type { paths } from '../../api/client.ts';

export type Template = paths['/api/templates/{id}']['get']['responses']['200']['content']['application/json']['data'];
type StoredComponent = Template['components'][number];
export type ComponentType = StoredComponent['type'];
type ComponentStyles = StoredComponent['styles'];

export interface DraftComponent {
  /** The component's id, made here for a new one, so a list row and its editor keep their identity through moves and saves. */
  id: string;
  type: ComponentType;
  /** A heading's or text's content. */
  content: string;
  level: 1 | 2;
  label: string;
  url: string;
  /** Kept as stored: the builder edits alignment and colours, and passes the rest through. */
  styles: ComponentStyles;
}

export interface Draft {
  name: string;
  subject: string;
  components: DraftComponent[];
  styles: { backgroundColor: string; width: string; padding: string };
}

export const EMPTY_DRAFT: Draft = {
  name: '',
  subject: '',
  components: [],
  styles: { backgroundColor: '#ffffff', width: '600', padding: '24' },
};

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function newComponentId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `cmp_${Array.from(bytes, (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join('')}`;
}

const STARTERS: Record<ComponentType, Pick<DraftComponent, 'content' | 'label' | 'url'>> = {
  heading: { content: 'A heading', label: '', url: '' },
  text: { content: 'Some text. Hello {{firstName|"there"}}!', label: '', url: '' },
  button: { content: '', label: 'A button', url: 'https://example.com' },
};

export function newComponent(type: ComponentType): DraftComponent {
  return { id: newComponentId(), type, level: 1, styles: {}, ...STARTERS[type] };
}

export function draftOf(template: Template): Draft {
  return {
    name: template.name,
    subject: template.subject,
    components: template.components.map((component) => ({
      id: component.id,
      type: component.type,
      content: component.type === 'button' ? '' : component.content,
      level: component.type === 'heading' ? component.level : 1,
      label: component.type === 'button' ? component.label : '',
      url: component.type === 'button' ? component.url : '',
      styles: component.styles,
    })),
    styles: { backgroundColor: template.styles.backgroundColor, width: String(template.styles.width), padding: String(template.styles.padding) },
  };
}

/** A number field's text as the API takes it: absent when empty (the default applies), else a number, NaN included, so the schema words the refusal. */
function numberOf(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

function withoutEmpty<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined && value !== '')) as Partial<T>;
}

/** The API's shape of the components and styles (the body of a create, an update or a preview). */
export function designBody(draft: Draft) {
  return {
    subject: draft.subject,
    components: draft.components.map((component) => {
      const common = { id: component.id, styles: withoutEmpty(component.styles) };
      if (component.type === 'button') return { ...common, type: 'button' as const, label: component.label, url: component.url };
      if (component.type === 'heading') return { ...common, type: 'heading' as const, content: component.content, level: component.level };
      return { ...common, type: 'text' as const, content: component.content };
    }),
    styles: withoutEmpty({
      backgroundColor: draft.styles.backgroundColor.trim(),
      width: numberOf(draft.styles.width),
      padding: numberOf(draft.styles.padding),
    }),
  };
}

export function templateBody(draft: Draft) {
  return { name: draft.name, ...designBody(draft) };
}

/** `list` with the item at `from` moved to `to`. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

/** A line that names a component in the list: its type and the start of its text. */
export function summaryOf(component: DraftComponent): string {
  const text = (component.type === 'button' ? component.label : component.content).replace(/<[^>]*>/g, '').trim();
  const short = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return `${TYPE_NAMES[component.type]}: ${short || '(empty)'}`;
}

export const TYPE_NAMES: Record<ComponentType, string> = { heading: 'Heading', text: 'Text', button: 'Button' };
