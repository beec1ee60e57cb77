// First step of `npm start` and `npm test`: a fresh clone has no node_modules, and everything
// after this step (tsx, vitest, the AWS SDK) lives there. Plain Node only: nothing is installed yet.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

// npm writes this hidden lockfile at the end of every install: without it an install never finished.
const MARKER = 'node_modules/.package-lock.json';

/** Every package package.json declares, so a dependency added since the last install counts as missing too. */
function declared() {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  return Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
}

const missing = !existsSync(MARKER) ? MARKER : declared().find((name) => !existsSync(`node_modules/${name}/package.json`));
if (missing) {
  const command = existsSync('package-lock.json') ? 'ci' : 'install';
  console.log(`node_modules is missing or incomplete (no ${missing === MARKER ? MARKER : `node_modules/${missing}`}): running npm ${command}`);
  const result = spawnSync('npm', [command], { stdio: 'inherit' });
  if (result.error) {
    console.error(`npm ${command} could not run: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}
