// DynamoDB Local is a Java program; fail in one clear line rather than with a spawn error later.
import { spawnSync } from 'node:child_process';

const MINIMUM = 17;
const INSTALL = 'on Debian: apt-get install -y default-jre-headless';

function fail(message) {
  console.error(message);
  process.exit(1);
}

/** The version `java -version` reports (on stderr): `openjdk version "1.8.0_392"` or `java version "11.0.2" 2019-01-15`. */
function reportedVersion() {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  return /version "([^"]+)"/.exec(`${probe.stderr}${probe.stdout}`)?.[1];
}

/** The feature release: 17 of "17.0.15", 8 of "1.8.0_392" (the numbering before Java 9). */
function featureRelease(version) {
  const [first, second] = version.split(/[.+_-]/).map(Number);
  return first === 1 ? second : first;
}

if (process.argv.includes('--always') || !process.env.DYNAMODB_ENDPOINT) {
  // One JVM start answers both questions: java.base@<version> and whether jdk.compiler is there.
  const probe = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  if (probe.error?.code === 'ENOENT') fail(`java was not found: DynamoDB Local needs Java ${MINIMUM}+ (${INSTALL})`);
  // Java 8 has no --list-modules: its -version still says which it is.
  const version = probe.status === 0 ? /^java\.base@(\S+)/m.exec(probe.stdout)?.[1] : reportedVersion();
  if (!version) fail(`java did not report its version: DynamoDB Local needs Java ${MINIMUM}+ (${INSTALL})`);
  if (!(featureRelease(version) >= MINIMUM))
    fail(`java ${version} found: DynamoDB Local needs Java ${MINIMUM}+ (${INSTALL}, or put a newer java first on PATH)`);
  // bin/dynamodb-local/LoopbackDynamoDBLocal.java is compiled with it: Debian's JRE has the module, some slim JREs do not.
  if (!/^jdk\.compiler@/m.test(probe.stdout)) {
    fail(`java has no jdk.compiler module, which DynamoDB Local's loopback launcher needs: install a full JRE (${INSTALL})`);
  }
}
