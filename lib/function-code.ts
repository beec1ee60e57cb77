import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The code asset of one handler for the stack: its folder (`index.mjs`, the
 * chunks it can load, its run-time files), bundled by lib/bundling.ts. The
 * asset is hashed by its output, as NodejsFunction does, so the repository
 * itself is never fingerprinted; CDK stages a handler's asset once for both
 * regions (their bundling options serialize alike), and a synth that skips
 * bundling (`aws:cdk:bundling-stacks`) builds nothing.
 */
export function functionCode(handler: string): Code {
  return Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // The same build in a container, were local bundling ever refused. The handler in
      // `command` also keeps each function's bundle apart: CDK reuses a bundle whose
      // options serialize alike, and `local` (a function) serializes to nothing.
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
      command: ['node', '--import', 'tsx', 'bin/bundle-function.ts', handler, '/asset-output'],
      local: {
        tryBundle(outputDir: string): boolean {
          buildSynchronously({ job: 'function', handler, directory: outputDir }, handler);
          return true;
        },
      },
    },
  });
}

/** A bundle must not take longer than this; a builder that never answers fails the synth rather than hanging it. */
const BUNDLE_TIMEOUT_MS = 300_000;

let builder: Worker | undefined;

/** What the builder thread builds: one handler's bundle, or the dashboard (dashboard/build.ts). */
export type BuildJob = { job: 'function'; handler: string; directory: string } | { job: 'dashboard'; directory: string };

/**
 * CDK asks for each asset synchronously, and esbuild's plugins run only in
 * its asynchronous API, so the bundling runs in a worker thread
 * (lib/bundle-worker.mjs) while this thread waits for it. One worker for the
 * whole synth, with one esbuild context that each function's build reuses:
 * the SDK and the shared modules are parsed once, not once per function, and
 * there is no process to start per function (a synth that started one per
 * function, each loading Node, tsx and aws-cdk-lib, took 70 s). The dashboard's
 * build runs in the same worker.
 */
export function buildSynchronously(job: BuildJob, label: string): void {
  if (!builder) {
    builder = new Worker(new URL('./bundle-worker.mjs', import.meta.url), { execArgv: [] });
    // The synth's process ends when its work does, the idle builder with it.
    builder.unref();
  }
  const done = new Int32Array(new SharedArrayBuffer(4));
  const { port1: answers, port2: reply } = new MessageChannel();
  builder.postMessage({ ...job, done, reply }, [reply]);
  if (Atomics.wait(done, 0, 0, BUNDLE_TIMEOUT_MS) === 'timed-out') throw new Error(`bundling ${label}: no answer in ${BUNDLE_TIMEOUT_MS / 1000} s`);
  const { error } = (receiveMessageOnPort(answers)?.message ?? {}) as { error?: string };
  answers.close();
  if (error) throw new Error(`bundling ${label} failed: ${error}`);
}
