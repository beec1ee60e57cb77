/** A template's page styles, every one set: defaults fill what a client leaves out when the template is saved. */
export interface TemplateStyles {
  backgroundColor: string;
  width: number;
  padding: number;
}

/** The column's width of a template that sets none. */
export const TEMPLATE_WIDTH_DEFAULT = 600;
