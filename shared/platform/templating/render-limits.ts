// Apart from renderer.ts so that request schemas can state the limits without loading the template engine.

/**
 * Bounds that keep a hostile template from hanging or exhausting a Lambda. The
 * three act together: renderLimit alone let a huge range loop run for seconds
 * before stopping, memoryLimit stops it within milliseconds.
 */
export const RENDER_LIMITS = {
  /** Characters of template source parsed per render. */
  parse: 200_000,
  /** Milliseconds of rendering. */
  render: 250,
  /** Liquid's unit of allocation (array items, string growth). */
  memory: 2_000_000,
  /** Characters of output. */
  output: 1_000_000,
} as const;
