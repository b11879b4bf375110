// Naming who holds a port: the listening sockets of a port in /proc/net/tcp and tcp6, the process
// with a descriptor on one, and the words. /proc is a fake here, so every case is exact.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const proc = vi.hoisted(() => ({ files: new Map<string, string>(), links: new Map<string, string>() }));

vi.mock('node:fs/promises', () => {
  const missing = (path: string) => Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  return {
    readFile: async (path: string) => {
      const text = proc.files.get(path);
      if (text === undefined) throw missing(path);
      return text;
    },
    readlink: async (path: string) => {
      const target = proc.links.get(path);
      if (target === undefined) throw missing(path);
      return target;
    },
    readdir: async (dir: string) => {
      const names = new Set<string>();
      for (const p of [...proc.files.keys(), ...proc.links.keys()])
        if (p.startsWith(`${dir}/`)) names.add(p.slice(dir.length + 1).split('/')[0]!);
      if (names.size === 0) throw missing(dir);
      return [...names];
    },
  };
});

import { describeOwner, portOwner } from '../../../src-main/core/port-owner';

// 47615 = 0xB9FF; 8080 = 0x1F90; 0A = LISTEN, 01 = ESTABLISHED.
const HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
const TCP =
  HEADER +
  `   0: 0100007F:B9FF 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 222222 1 0000000000000000 20 4 30 10 -1
   1: 0100007F:B9FF 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 0 1 0000000000000000 100 0 0 10 0
   2: 0100007F:B9FF 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0
`;
const TCP6 =
  HEADER +
  `   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 333333 1 0000000000000000 100 0 0 10 0
`;

/** A process in the fake /proc: its name, command line and the sockets its descriptors point at. */
function fakeProcess(pid: number, comm: string, cmdline: string[], sockets: string[]) {
  proc.files.set(`/proc/${pid}/comm`, `${comm}\n`);
  proc.files.set(`/proc/${pid}/cmdline`, cmdline.join('\0'));
  sockets.forEach((inode, fd) => proc.links.set(`/proc/${pid}/fd/${fd + 3}`, `socket:[${inode}]`));
}

const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;

beforeEach(() => {
  Object.defineProperty(process, 'platform', { value: 'linux' });
  proc.files.clear();
  proc.links.clear();
  proc.files.set('/proc/net/tcp', TCP);
  proc.files.set('/proc/net/tcp6', TCP6);
  // Listed first: the holder of the port's established connection, and of a socket with inode 0.
  fakeProcess(77, 'curl', ['curl', 'http://127.0.0.1:47615'], ['222222']);
  fakeProcess(78, 'odd', ['odd'], ['0']);
  fakeProcess(1234, 'python3', ['python3', '-m', 'http.server', '47615'], ['999', '123456']);
  fakeProcess(55, 'node', ['node', '/opt/channel-companion/cli.cjs', 'serve'], ['333333']);
});

afterEach(() => Object.defineProperty(process, 'platform', platform));

describe('port owner', () => {
  it('is the process holding the listening socket of the port (not an established connection, nor inode 0)', async () => {
    expect(await portOwner(47615)).toEqual({ pid: 1234, command: 'python3', companion: false });
  });

  it('reads the IPv6 table too, and knows another Channel Companion by its command line', async () => {
    expect(await portOwner(8080)).toEqual({ pid: 55, command: 'node', companion: true });
  });

  it('is unknown for a port no one listens on, or when no process of this user holds the socket', async () => {
    const unknown = { pid: null, command: null, companion: false };
    expect(await portOwner(9)).toEqual(unknown);
    proc.links.delete('/proc/1234/fd/4');
    expect(await portOwner(47615)).toEqual(unknown);
  });

  it('is unknown when /proc cannot be read, or on another system', async () => {
    const unknown = { pid: null, command: null, companion: false };
    proc.files.delete('/proc/net/tcp');
    proc.files.set('/proc/net/tcp6', '');
    expect(await portOwner(47615)).toEqual(unknown);
    proc.files.set('/proc/net/tcp', TCP);
    Object.defineProperty(process, 'platform', { value: 'darwin' });
    expect(await portOwner(47615)).toEqual(unknown);
  });

  it('says who holds it as far as it is known', () => {
    expect(describeOwner({ pid: null, command: null, companion: false })).toBe('another program');
    expect(describeOwner({ pid: 42, command: 'python3', companion: false })).toBe(
      'another program (python3, process 42)',
    );
    expect(describeOwner({ pid: 42, command: null, companion: false })).toBe('another program (process 42)');
    expect(describeOwner({ pid: 42, command: 'node', companion: true })).toBe('another Channel Companion (process 42)');
  });
});
