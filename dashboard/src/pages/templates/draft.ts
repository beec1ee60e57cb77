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
  /** A button's or an image's address. */
  url: string;
  /** An image's alt text ("" for a decorative image), its link and its width as typed. */
  alt: string;
  href: string;
  width: string;
  /** A spacer's height as typed. */
  height: string;
  /** Kept as stored: the builder edits alignment, colours and a divider's line, and passes the rest through. */
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

const BLANK = { content: '', level: 1, label: '', url: '', alt: '', href: '', width: '', height: '', styles: {} } as const;

const STARTERS: Record<ComponentType, Partial<DraftComponent>> = {
  heading: { content: 'A heading' },
  text: { content: 'Some text. Hello {{firstName|"there"}}!' },
  button: { label: 'A button', url: 'https://example.com' },
  image: { url: 'https://example.com/image.png', alt: 'Describe the image' },
  divider: {},
  spacer: { height: '24' },
};

export function newComponent(type: ComponentType): DraftComponent {
  return { ...BLANK, id: newComponentId(), type, ...STARTERS[type] };
}

export function draftOf(template: Template): Draft {
  return {
    name: template.name,
    subject: template.subject,
    components: template.components.map((component) => ({
      ...BLANK,
      id: component.id,
      type: component.type,
      ...(component.type === 'heading' || component.type === 'text' ? { content: component.content } : {}),
      ...(component.type === 'heading' ? { level: component.level } : {}),
      ...(component.type === 'button' ? { label: component.label, url: component.url } : {}),
      ...(component.type === 'image'
        ? { url: component.url, alt: component.alt, href: component.href ?? '', width: component.width === undefined ? '' : String(component.width) }
        : {}),
      ...(component.type === 'spacer' ? { height: String(component.height) } : {}),
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

/** One component in the API's shape: only the fields of its type, numbers as numbers, empty optional fields left out. */
function componentBody(component: DraftComponent) {
  const common = { id: component.id, styles: withoutEmpty(component.styles) };
  switch (component.type) {
    case 'button':
      return { ...common, type: 'button' as const, label: component.label, url: component.url };
    case 'heading':
      return { ...common, type: 'heading' as const, content: component.content, level: component.level };
    case 'text':
      return { ...common, type: 'text' as const, content: component.content };
    case 'image':
      return {
        ...common,
        type: 'image' as const,
        url: component.url,
        alt: component.alt,
        ...withoutEmpty({ href: component.href.trim(), width: numberOf(component.width) }),
      };
    case 'divider': {
      const { thickness, margin, ...rest } = component.styles;
      const styles = { ...rest, ...withoutEmpty({ thickness: numberOf(String(thickness ?? '')), margin: numberOf(String(margin ?? '')) }) };
      return { ...common, type: 'divider' as const, styles: withoutEmpty(styles) };
    }
    case 'spacer':
      return { id: component.id, type: 'spacer' as const, ...withoutEmpty({ height: numberOf(component.height) }) };
  }
}

/** The API's shape of the components and styles (the body of a create, an update or a preview). */
export function designBody(draft: Draft) {
  return {
    subject: draft.subject,
    components: draft.components.map(componentBody),
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
function summaryText(component: DraftComponent): string {
  switch (component.type) {
    case 'button':
      return component.label;
    case 'image':
      return component.alt || `(decorative) ${component.url}`;
    case 'divider':
      return 'a line';
    case 'spacer':
      return `${component.height || '24'} px`;
    default:
      return component.content;
  }
}

export function summaryOf(component: DraftComponent): string {
  const text = summaryText(component)
    .replace(/<[^>]*>/g, '')
    .trim();
  const short = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return `${TYPE_NAMES[component.type]}: ${short || '(empty)'}`;
}

export const TYPE_NAMES: Record<ComponentType, string> = {
  heading: 'Heading',
  text: 'Text',
  button: 'Button',
  image: 'Image',
  divider: 'Divider',
  spacer: 'Spacer',
};
