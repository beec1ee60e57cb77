// One function instance of the bundle suite, in a Node process of its own as in
// Lambda: imports the deployed bundle it is given (its cold start, with the
// environment the stack gives that function) and runs each event the suite sends
// over IPC, answering the handler's result or the error it threw. Plain
// JavaScript, no loader: the bundle must run on Node alone.
import { Resolver } from 'node:dns/promises';
import { pathToFileURL } from 'node:url';

const [entry, functionName] = process.argv.slice(2);

// The system's resolver, as Lambda's functions have one: the suite's DNS stand-in (test/bundles/dns.ts).
const dnsServer = process.env.BUNDLE_SUITE_DNS_SERVER;
if (dnsServer) {
  const resolveTxt = Resolver.prototype.resolveTxt;
  Resolver.prototype.resolveTxt = function (name) {
    this.setServers([dnsServer]);
    return resolveTxt.call(this, name);
  };
}

const { handler } = await import(pathToFileURL(entry).href);
let invocations = 0;

process.on('message', async ({ id, event }) => {
  const started = Date.now();
  const context = {
    awsRequestId: `bundle-${process.pid}-${++invocations}`,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bundle-suite',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 28_000 - (Date.now() - started),
  };
  try {
    process.send({ id, result: (await handler(event, context)) ?? null });
  } catch (error) {
    process.send({ id, error: { name: error?.name, message: error?.message, stack: error?.stack } });
  }
});
process.send({ ready: true });
