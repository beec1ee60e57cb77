/**
 * The TCP sockets a process tree listens on, read from /proc as `ss -ltnp`
 * would show them: a process's socket inodes (/proc/<pid>/fd) matched with
 * the LISTEN rows of /proc/net/tcp and tcp6.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Listener {
  pid: number;
  /** `127.0.0.1`, `0.0.0.0`, `::`, `::ffff:127.0.0.1`, … */
  address: string;
  port: number;
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

function treeOf(root: number): number[] {
  const pids = [root];
  for (let index = 0; index < pids.length; index++) pids.push(...childrenOf(pids[index]!));
  return pids;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const target = (() => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      })();
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    }
  } catch {
    /* the process ended meanwhile */
  }
  return inodes;
}

/** /proc/net addresses are hex in host byte order, 32-bit words at a time. */
function addressOf(hex: string): string {
  const words = hex.match(/.{8}/g)!.map((word) => word.match(/../g)!.reverse().join(''));
  if (words.length === 1)
    return words[0]!
      .match(/../g)!
      .map((byte) => parseInt(byte, 16))
      .join('.');
  const groups = words
    .join('')
    .match(/.{4}/g)!
    .map((group) => parseInt(group, 16).toString(16));
  if (groups.slice(0, 5).every((group) => group === '0') && groups[5] === 'ffff') {
    return `::ffff:${addressOf(words[3]!.match(/../g)!.reverse().join(''))}`;
  }
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

const LISTEN = '0A';

/** Every LISTEN socket of `root` and its descendants. Linux only. */
export function listenersOf(root: number): Listener[] {
  const rows = ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/)),
  );
  return treeOf(root).flatMap((pid) => {
    const inodes = socketInodes(pid);
    return rows
      .filter((row) => row[3] === LISTEN && inodes.has(row[9]!))
      .map((row) => {
        const [address, port] = row[1]!.split(':');
        return { pid, address: addressOf(address!), port: parseInt(port!, 16) };
      });
  });
}
