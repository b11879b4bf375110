// The tunnel under test, in its own process: receive → verify → store (fdatasync) → forward to the
// local app. Profile it by hand: node --cpu-prof --import tsx test/bench/tunnel/tunnel-child.ts '{…}'.
import { z } from 'zod';
import { Tunnel } from '../../../src-main/core/tunnel';
import { emit, exitWithParent, parseArg } from '../monitor/child-common';

const { target, dataDir, secret } = parseArg(z.strictObject({ target: z.string().url(), dataDir: z.string().min(1), secret: z.string().min(1) }));
// The log's default bounds, as `listen` runs it: segments roll and drop during the run.
const tunnel = new Tunnel({ dataDir, getSecrets: async () => [secret], forward: { defaultUrl: `${target}/webhook` } });
const { url } = await tunnel.start();
emit({ type: 'ready', url });
exitWithParent(() => tunnel.stop());
