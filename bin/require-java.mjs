// DynamoDB Local is a Java program; fail in one clear line rather than with a spawn error later.
import { spawnSync } from 'node:child_process';

if (process.argv.includes('--always') || !process.env.DYNAMODB_ENDPOINT) {
  const probe = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    console.error('java was not found: DynamoDB Local needs Java 17+ (on Debian: apt-get install -y default-jre-headless)');
    process.exit(1);
  }
  // bin/dynamodb-local/LoopbackDynamoDBLocal.java runs as a source program: Debian's JRE has the module, some slim JREs do not.
  if (!/^jdk\.compiler@/m.test(probe.stdout)) {
    console.error("java has no jdk.compiler module, which DynamoDB Local's loopback launcher needs: install a full JRE (on Debian: apt-get install -y default-jre-headless)");
    process.exit(1);
  }
}
