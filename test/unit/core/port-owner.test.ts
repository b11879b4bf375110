// Naming who holds a port: the listening sockets of a port in a /proc/net/tcp table, and the words.
import { describe, expect, it } from 'vitest';
import { describeOwner, listeningInodes } from '../../../src-main/core/port-owner';

// 47615 = 0xB9FF; 0A = LISTEN, 01 = ESTABLISHED.
const TABLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:B9FF 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0
   1: 0100007F:B9FF 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 222222 1 0000000000000000 20 4 30 10 -1
   2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 333333 1 0000000000000000 100 0 0 10 0
   3: 0100007F:B9FF 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 0 1 0000000000000000 100 0 0 10 0
`;

describe('port owner', () => {
  it('finds only the listening sockets of the port (an established connection or another port is not the holder)', () => {
    expect(listeningInodes(TABLE, 47615)).toEqual(['123456']);
    expect(listeningInodes(TABLE, 8080)).toEqual(['333333']);
    expect(listeningInodes(TABLE, 9)).toEqual([]);
    expect(listeningInodes('', 47615)).toEqual([]);
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
