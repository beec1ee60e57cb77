// DynamoDB Local is a Java program; fail in one clear line rather than with a spawn error later.
import { spawnSync } from 'node:child_process';

if (process.argv.includes('--always') || !process.env.DYNAMODB_ENDPOINT) {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    console.error('java was not found: DynamoDB Local needs Java 17+ (on Debian: apt-get install -y default-jre-headless)');
    process.exit(1);
  }
}
