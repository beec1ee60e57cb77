/**
 * A DNS server on 127.0.0.1 that answers TXT queries from what a test
 * published, and NXDOMAIN for any other name: the bundle suite's stand-in for
 * the resolver Lambda's functions ask (the runtime points node:dns's resolvers
 * at it, test/bundles/lambda-runtime.mjs), so a domain's ownership check
 * sends its real query (shared/domains/verification.ts).
 */
import { createSocket } from 'node:dgram';
import { once } from 'node:events';

const TXT = 16;
const NXDOMAIN = 3;

export interface TxtServer {
  /** `127.0.0.1:<port>`, as `Resolver.setServers` takes it. */
  address: string;
  publish(name: string, value: string): void;
  stop(): Promise<void>;
}

/** The question's name and type, and where the question ends: RFC 1035, 4.1.2 (names in queries are not compressed). */
function question(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at]! > 0) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString('ascii'));
    at += query[at]! + 1;
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

/** One TXT record: its value in character-strings of at most 255 bytes (RFC 1035, 3.3.14). */
function txtRecord(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const strings: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 255) {
    const part = bytes.subarray(at, at + 255);
    strings.push(Buffer.from([part.length]), part);
  }
  const data = Buffer.concat(strings);
  const header = Buffer.alloc(12);
  // A pointer to the question's name, TXT, IN, a minute's TTL, the data's length.
  header.writeUInt16BE(0xc00c, 0);
  header.writeUInt16BE(TXT, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt32BE(60, 6);
  header.writeUInt16BE(data.length, 10);
  return Buffer.concat([header, data]);
}

export async function startTxtServer(): Promise<TxtServer> {
  const records = new Map<string, string[]>();
  const socket = createSocket('udp4');
  socket.on('message', (query, from) => {
    const { name, type, end } = question(query);
    const values = records.get(name);
    const answers = type === TXT ? (values ?? []) : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    // A response, recursion desired and available, NXDOMAIN for a name nothing was published at.
    header.writeUInt16BE(0x8180 | (values ? 0 : NXDOMAIN), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, query.subarray(12, end), ...answers.map(txtRecord)]), from.port, from.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return {
    address: `127.0.0.1:${socket.address().port}`,
    publish(name, value) {
      records.set(name.toLowerCase(), [...(records.get(name.toLowerCase()) ?? []), value]);
    },
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
