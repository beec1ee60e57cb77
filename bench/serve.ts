// The API for the load test, in a process of its own; tells the benchmark its address over IPC once listening.
import { startHttpServer } from '#dev/local/http-server.ts';

const server = await startHttpServer({ port: 0 });
process.send!({ url: server.url });
const stop = () => {
  void server.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
// The IPC channel closes when the benchmark ends in any way: this server goes with it.
process.on('disconnect', stop);
