/**
 * A race on a domain's addition played on demand: work the next API-created
 * identity runs first, after the request's own checks have passed and before
 * its record is written (the one moment a racing request can take its place).
 * test/support/setup.ts calls it from the verifier every endpoint uses.
 */
type Interleaved = (domain: string) => Promise<void>;

let interleaved: Interleaved | undefined;

/** Runs `work` inside the next identity creation of any endpoint, once. */
export function beforeNextIdentityCreation(work: Interleaved): void {
  interleaved = work;
}

export async function runInterleaved(domain: string): Promise<void> {
  const work = interleaved;
  interleaved = undefined;
  await work?.(domain);
}
