import { beforeEach, vi } from 'vitest';

/**
 * What the code under test writes to the console, one string a call, emptied
 * before each test of the calling file; nothing reaches the real console.
 * `const lines = captureConsole();` at the top of a test file.
 */
export function captureConsole(): string[] {
  const lines: string[] = [];
  beforeEach(() => {
    lines.length = 0;
    const capture = (...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    };
    for (const method of ['log', 'info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(capture);
  });
  return lines;
}
