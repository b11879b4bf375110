// The tunnel under test, in its own process: receive → verify → store (fdatasync) → forward to the
// local app. `sync: false` answers once a record is written, without the fdatasync (the log's file
// operations are injectable for tests): it shows what the wait for the disk costs.
// Profile it by hand: node --cpu-prof --import tsx test/bench/tunnel/tunnel-child.ts '{…}'.
import { z } from 'zod';
import { Tunnel } from '../../../src-main/core/tunnel';
import { emit, exitWithParent, parseArg } from '../monitor/child-common';

const { target, dataDir, secret, sync } = parseArg(
  z.strictObject({
    target: z.string().url(),
    dataDir: z.string().min(1),
    secret: z.string().min(1),
    sync: z.boolean(),
  }),
);
// The log's default bounds, as `listen` runs it: segments roll and drop during the run.
const tunnel = new Tunnel({
  dataDir,
  getSecrets: async () => [secret],
  forward: { defaultUrl: `${target}/webhook` },
  ...(sync ? {} : { logIO: { datasync: () => Promise.resolve() } }),
});
const { url } = await tunnel.start();
emit({ type: 'ready', url });
exitWithParent(() => tunnel.stop());
