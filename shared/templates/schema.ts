import * as v from 'valibot';
import { requiredText, strictObject, templateVariables } from '#shared/platform/schema/common.ts';
import { TEMPLATE_SEARCH_MAX } from './list-schema.ts';
import { timestamp } from '#shared/platform/schema/replies.ts';
import { TEMPLATE_WIDTH_DEFAULT } from './styles.ts';

/**
 * Limits the spec leaves open. Together they keep a template's item far below
 * DynamoDB's 400 KB and each part within the renderer's parse limit.
 */
export const TEMPLATE_LIMITS = {
  name: 256,
  /** RFC 5322's longest line. */
  subject: 998,
  components: 100,
  /** Characters of one heading's or text's content. */
  content: 50_000,
  label: 500,
  /** Characters of an image's alt text. */
  alt: 500,
  url: 2_048,
  componentId: 64,
  /** UTF-8 bytes of all components together, as JSON. */
  componentsBytes: 200_000,
  search: TEMPLATE_SEARCH_MAX,
} as const;

export const TEMPLATE_WIDTH = { min: 320, max: 1200 } as const;
export const TEMPLATE_PADDING = { min: 0, max: 100 } as const;
export const FONT_SIZE = { min: 8, max: 96 } as const;
export const BORDER_RADIUS = { min: 0, max: 100 } as const;
/** An image's width in pixels; at most the template's own width too (checked with the body). */
export const IMAGE_WIDTH = { min: 1, max: TEMPLATE_WIDTH.max } as const;
export const DIVIDER_THICKNESS = { min: 1, max: 10 } as const;
/** Space above and below a divider's line, in pixels. */
export const DIVIDER_MARGIN = { min: 0, max: 100 } as const;
export const SPACER_HEIGHT = { min: 1, max: 200 } as const;

/** CSS named colours (CSS Color Module Level 4) and `transparent`. */
const NAMED_COLORS = new Set(
  (
    'aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown burlywood ' +
    'cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan darkgoldenrod darkgray ' +
    'darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen ' +
    'darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue dimgray dimgrey dodgerblue ' +
    'firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold goldenrod gray green greenyellow grey honeydew ' +
    'hotpink indianred indigo ivory khaki lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan ' +
    'lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray ' +
    'lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine mediumblue ' +
    'mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise mediumvioletred ' +
    'midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid ' +
    'palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum powderblue purple ' +
    'rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue ' +
    'slateblue slategray slategrey snow springgreen steelblue tan teal thistle tomato turquoise violet wheat white ' +
    'whitesmoke yellow yellowgreen transparent'
  ).split(' '),
);

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/;
const RGB_COLOR = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/;

/**
 * A colour Gmail and Outlook both understand: `#rgb`, `#rrggbb`, `rgb(r, g, b)`
 * or a named colour. Nothing else can reach a style attribute, so a value can
 * never close the attribute or add a declaration.
 */
export function isCssColor(value: string): boolean {
  if (HEX_COLOR.test(value) || NAMED_COLORS.has(value)) return true;
  const rgb = RGB_COLOR.exec(value);
  if (!rgb) return false;
  return rgb.slice(1).every((channel) => Number(channel) <= 255);
}

const cssColor = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.check(isCssColor, 'must be a CSS colour: #rgb, #rrggbb, rgb(r, g, b) or a colour name'));

function numberIn(range: { min: number; max: number }, integer = false) {
  const message = `must be a ${integer ? 'whole ' : ''}number from ${range.min} to ${range.max}`;
  return v.pipe(
    v.number(message),
    v.finite(message),
    v.check((value) => !integer || Number.isInteger(value), message),
    v.minValue(range.min, message),
    v.maxValue(range.max, message),
  );
}

export const FONT_WEIGHTS = ['normal', 'bold', 'bolder', 'lighter', '100', '200', '300', '400', '500', '600', '700', '800', '900'] as const;
export const TEXT_ALIGNS = ['left', 'center', 'right', 'justify'] as const;

export const componentStyles = strictObject({
  fontSize: v.optional(numberIn(FONT_SIZE)),
  fontWeight: v.optional(v.picklist(FONT_WEIGHTS, `must be one of ${FONT_WEIGHTS.join(', ')}`)),
  textAlign: v.optional(v.picklist(TEXT_ALIGNS, `must be one of ${TEXT_ALIGNS.join(', ')}`)),
  backgroundColor: v.optional(cssColor),
  color: v.optional(cssColor),
  borderRadius: v.optional(numberIn(BORDER_RADIUS)),
});
export type ComponentStyles = v.InferOutput<typeof componentStyles>;

export const templateStyles = strictObject({
  backgroundColor: v.optional(cssColor),
  width: v.optional(numberIn(TEMPLATE_WIDTH, true)),
  padding: v.optional(numberIn(TEMPLATE_PADDING, true)),
});
export type TemplateStylesInput = v.InferOutput<typeof templateStyles>;

/**
 * Text in the template language. Its syntax is checked when saved
 * (shared/templates/service.ts `checkSyntax`), not here: every template
 * function loads these schemas through the area's contract, and only create
 * and update should carry the template engine.
 */
function templateText(maxLength: number) {
  return requiredText(maxLength);
}

/** Markup mail clients strip or refuse; in a template it only ever breaks the layout or hides content. */
const UNSAFE_TAG = /<\s*(?:\/\s*)?(?:script|style|link|meta|base|iframe|frame|frameset|object|embed|applet|form|input|button|select|textarea|svg|math)\b/i;
/**
 * An attribute that runs script: `onclick=`, or a `javascript:` address.
 * Written so no two parts can match the same characters (`(?=(…))\1` takes the
 * name atomically): a 50 KB hostile content is checked in linear time.
 */
const SCRIPTED_ATTRIBUTE = /<[a-z][^<>]*?(?:\s(?=(on[a-z]+))\1\s*=|=\s*(?:["']\s*)?javascript\s*:)/i;

/** Content and labels are the author's HTML (inline markup, links, images), but nothing that scripts or restyles the email. */
export function isEmailSafeMarkup(html: string): boolean {
  return !UNSAFE_TAG.test(html) && !SCRIPTED_ATTRIBUTE.test(html);
}

function componentMarkup(maxLength: number) {
  return v.pipe(
    templateText(maxLength),
    v.check(isEmailSafeMarkup, 'must not contain scripts, event handlers, javascript: links, <style>, <link>, forms or frames'),
  );
}

/** One variable standing for the whole address, as `{{unsubscribeUrl}}` or `{{link|"https://…"}}`. */
const WHOLE_VARIABLE = /^\{\{\s*[A-Za-z_][\w.-]*\s*(?:\|\s*"[^"]*"\s*)?\}\}$/;
const LINK_URL = /^(?:https?:\/\/[^\s/?#]|mailto:)\S*$/i;

/** Where a button may point: http(s) or mailto, or one variable (checked again once rendered). Never `javascript:`. */
export function isButtonUrl(url: string): boolean {
  return WHOLE_VARIABLE.test(url) || LINK_URL.test(url);
}

const buttonUrl = v.pipe(
  requiredText(TEMPLATE_LIMITS.url),
  v.check(isButtonUrl, 'must be an http(s) or mailto address, or a variable such as {{unsubscribeUrl}}'),
);

const IMAGE_URL = /^https:\/\/[^\s/?#]\S*$/i;

/**
 * Where an image loads from: https only, or one variable (checked again once
 * rendered). Mail clients and their image proxies refuse or flag http, and a
 * data: image is dropped by Gmail and Outlook and would bloat every message.
 */
export function isImageUrl(url: string): boolean {
  return WHOLE_VARIABLE.test(url) || IMAGE_URL.test(url);
}

const imageUrl = v.pipe(requiredText(TEMPLATE_LIMITS.url), v.check(isImageUrl, 'must be an https address, or a variable such as {{logoUrl}}'));

const componentId = v.pipe(
  v.string(),
  v.regex(new RegExp(`^[A-Za-z0-9_-]{1,${TEMPLATE_LIMITS.componentId}}$`), `must be 1 to ${TEMPLATE_LIMITS.componentId} letters, digits, _ or -`),
);

const heading = strictObject({
  id: v.optional(componentId),
  type: v.literal('heading'),
  content: componentMarkup(TEMPLATE_LIMITS.content),
  /** `<h1>` or `<h2>`. */
  level: v.optional(v.picklist([1, 2], 'must be 1 or 2')),
  styles: v.optional(componentStyles),
});

const text = strictObject({
  id: v.optional(componentId),
  type: v.literal('text'),
  content: componentMarkup(TEMPLATE_LIMITS.content),
  styles: v.optional(componentStyles),
});

const button = strictObject({
  id: v.optional(componentId),
  type: v.literal('button'),
  label: componentMarkup(TEMPLATE_LIMITS.label),
  url: buttonUrl,
  styles: v.optional(componentStyles),
});

const image = strictObject({
  id: v.optional(componentId),
  type: v.literal('image'),
  url: imageUrl,
  /**
   * Plain text (escaped once where it is written). Required, so leaving it
   * out is a mistake the API names; `""` says the image is decorative, and
   * screen readers and the plain text skip it.
   */
  alt: v.pipe(v.string(), v.trim(), v.maxLength(TEMPLATE_LIMITS.alt, `must be at most ${TEMPLATE_LIMITS.alt} characters`)),
  href: v.optional(buttonUrl),
  width: v.optional(numberIn(IMAGE_WIDTH, true)),
  styles: v.optional(strictObject({ textAlign: componentStyles.entries.textAlign })),
});

const divider = strictObject({
  id: v.optional(componentId),
  type: v.literal('divider'),
  styles: v.optional(
    strictObject({
      color: v.optional(cssColor),
      thickness: v.optional(numberIn(DIVIDER_THICKNESS, true)),
      margin: v.optional(numberIn(DIVIDER_MARGIN, true)),
    }),
  ),
});

const spacer = strictObject({
  id: v.optional(componentId),
  type: v.literal('spacer'),
  height: v.optional(numberIn(SPACER_HEIGHT, true)),
  styles: v.optional(strictObject({})),
});

export const COMPONENT_TYPES = ['heading', 'text', 'button', 'image', 'divider', 'spacer'] as const;

const component = v.variant('type', [heading, text, button, image, divider, spacer], `must be one of ${COMPONENT_TYPES.join(', ')}`);
export type ComponentInput = v.InferOutput<typeof component>;

export type DividerStyles = NonNullable<v.InferOutput<typeof divider>['styles']>;
export type ImageStyles = NonNullable<v.InferOutput<typeof image>['styles']>;

/** Defaults filled in when a template is saved: what the component is, not how it looks (styles keep only what was given). */
export const SPACER_DEFAULT_HEIGHT = 24;

type InputOf<T extends ComponentInput['type']> = Extract<ComponentInput, { type: T }>;
/** A component as stored: its id and styles always present. */
type Stored<T extends ComponentInput['type']> = Omit<InputOf<T>, 'id' | 'styles'> & { id: string; styles: NonNullable<InputOf<T>['styles']> };

/** A stored component: the input with its id, styles and (headings) level, (spacers) height filled in, as service.ts `normalizeComponents` writes it. */
export type TemplateComponent =
  | (Stored<'heading'> & { level: 1 | 2 })
  | Stored<'text'>
  | Stored<'button'>
  | Stored<'image'>
  | Stored<'divider'>
  | (Stored<'spacer'> & { height: number });

/**
 * The template-language parts of a component, by field name: what is parsed
 * when saved, rendered, and read for the variables it uses.
 */
export function componentParts(component: ComponentInput | TemplateComponent): [field: string, source: string][] {
  switch (component.type) {
    case 'heading':
    case 'text':
      return [['content', component.content]];
    case 'button':
      return [
        ['label', component.label],
        ['url', component.url],
      ];
    case 'image':
      return [['url', component.url], ['alt', component.alt], ...(component.href === undefined ? [] : [['href', component.href] as [string, string]])];
    case 'divider':
    case 'spacer':
      return [];
  }
}

/** TextEncoder rather than Buffer: the dashboard checks a template with this schema in the browser. */
function byteLength(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

const components = v.pipe(
  v.array(component),
  v.maxLength(TEMPLATE_LIMITS.components, `must have at most ${TEMPLATE_LIMITS.components} components`),
  v.check((list) => byteLength(list) <= TEMPLATE_LIMITS.componentsBytes, `must total at most ${TEMPLATE_LIMITS.componentsBytes / 1000} KB`),
  v.rawCheck<ComponentInput[]>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const seen = new Set<string>();
    for (const [index, item] of dataset.value.entries()) {
      const at = (key: string, value: unknown): v.IssuePathItem[] => [
        { type: 'array', origin: 'value', input: dataset.value, key: index, value: item },
        { type: 'object', origin: 'value', input: item, key, value },
      ];
      // A link's only name is its image's alt text: without one, a screen reader announces the address or nothing.
      if (item.type === 'image' && item.href !== undefined && item.alt === '') {
        addIssue({ message: 'must say where the link goes when the image is a link', path: at('alt', item.alt) as never });
        return;
      }
      if (item.id === undefined) continue;
      if (seen.has(item.id)) {
        addIssue({ message: `duplicate component id ${item.id}`, path: at('id', item.id) as never });
        return;
      }
      seen.add(item.id);
    }
  }),
);

/**
 * An image no wider than the template's column (`styles.width`, 600 unless
 * given): checked where the body holds both. An update that changes only the
 * components cannot know the stored width; there the rendering draws a wider
 * image at the column's width.
 */
function imagesWithin<T extends { components?: ComponentInput[]; styles?: TemplateStylesInput }>(defaultWidth: number | undefined) {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { components: list = [], styles } = dataset.value;
    const width = styles === undefined ? defaultWidth : (styles.width ?? TEMPLATE_WIDTH_DEFAULT);
    if (width === undefined) return;
    for (const [index, item] of list.entries()) {
      if (item.type !== 'image' || item.width === undefined || item.width <= width) continue;
      addIssue({
        message: `must be at most the template's width, ${width}`,
        path: [
          { type: 'object', origin: 'value', input: dataset.value, key: 'components', value: list },
          { type: 'array', origin: 'value', input: list, key: index, value: item },
          { type: 'object', origin: 'value', input: item, key: 'width', value: item.width },
        ] as never,
      });
      return;
    }
  });
}

export const createTemplateBody = v.pipe(
  strictObject({
    name: requiredText(TEMPLATE_LIMITS.name),
    subject: templateText(TEMPLATE_LIMITS.subject),
    components: v.optional(components, []),
    styles: v.optional(templateStyles, {}),
  }),
  imagesWithin(TEMPLATE_WIDTH_DEFAULT),
);
export type CreateTemplateInput = v.InferOutput<typeof createTemplateBody>;

/** Only the fields given change; `components` and `styles` replace the stored ones whole. */
export const updateTemplateBody = v.pipe(
  strictObject({
    name: v.optional(requiredText(TEMPLATE_LIMITS.name)),
    subject: v.optional(templateText(TEMPLATE_LIMITS.subject)),
    components: v.optional(components),
    styles: v.optional(templateStyles),
  }),
  imagesWithin(undefined),
);
export type UpdateTemplateInput = v.InferOutput<typeof updateTemplateBody>;

/** A template not saved yet (or its unsaved changes), rendered as it would be: the dashboard's live preview. */
export const renderDraftBody = v.pipe(
  strictObject({
    subject: templateText(TEMPLATE_LIMITS.subject),
    components: v.optional(components, []),
    styles: v.optional(templateStyles, {}),
    variables: v.optional(templateVariables, {}),
  }),
  imagesWithin(TEMPLATE_WIDTH_DEFAULT),
);
export type RenderDraftInput = v.InferOutput<typeof renderDraftBody>;

export const renderTemplateBody = strictObject({
  variables: v.optional(templateVariables, {}),
});
export type RenderTemplateInput = v.InferOutput<typeof renderTemplateBody>;

// Replies.

const replyComponentStyles = v.record(v.string(), v.union([v.string(), v.number()]));

const templateComponentSchema = v.variant('type', [
  v.strictObject({ id: v.string(), type: v.literal('heading'), content: v.string(), level: v.picklist([1, 2]), styles: replyComponentStyles }),
  v.strictObject({ id: v.string(), type: v.literal('text'), content: v.string(), styles: replyComponentStyles }),
  v.strictObject({ id: v.string(), type: v.literal('button'), label: v.string(), url: v.string(), styles: replyComponentStyles }),
  v.strictObject({
    id: v.string(),
    type: v.literal('image'),
    url: v.string(),
    alt: v.string(),
    href: v.optional(v.string()),
    width: v.optional(v.number()),
    styles: replyComponentStyles,
  }),
  v.strictObject({ id: v.string(), type: v.literal('divider'), styles: replyComponentStyles }),
  v.strictObject({ id: v.string(), type: v.literal('spacer'), height: v.number(), styles: replyComponentStyles }),
]);

export const templateSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  subject: v.string(),
  components: v.array(templateComponentSchema),
  styles: v.strictObject({ backgroundColor: v.string(), width: v.number(), padding: v.number() }),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const templateListItemSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  subject: v.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const renderedTemplateReply = v.strictObject({ success: v.literal(true), subject: v.string(), html: v.string(), text: v.string() });

export const renderedDraftReply = v.strictObject({
  ...renderedTemplateReply.entries,
  /** The variables the draft reads that a send may give, built-ins left out, in order of first use. */
  variables: v.array(v.string()),
});
