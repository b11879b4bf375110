// Tries to take the tunnel's writer lock of a folder (argv[2]) once the parent says "go" on stdin,
// prints {"got":true|false,"error"?} and, when it got it, holds it until stdin closes.
import { createInterface } from 'node:readline';
import { acquireWriterLock } from '../../../src-main/core/tunnel/lock';

const dir = process.argv[2]!;
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
const rl = createInterface({ input: process.stdin });
rl.once('line', () => {
  acquireWriterLock(dir).then(
    (lock) => {
      process.stdout.write(`${JSON.stringify({ got: true })}\n`);
      process.stdin.once('end', () => void lock.release().then(() => process.exit(0)));
    },
    (err: Error) => {
      process.stdout.write(`${JSON.stringify({ got: false, error: err.message })}\n`);
      process.exit(0);
    },
  );
});
