// `--metrics-port N` and `--metrics-host H` (monitor, serve): OpenMetrics at http://H:N/metrics for
// Prometheus to scrape, on loopback unless another host is given on purpose (and warned about).
import type { Command } from 'commander';
import { isLoopbackHost } from '../../src-shared/url';
import { UsageError } from './errors';
import { hostName, intString } from './flags';
import type { Output } from './output';

export const metricsFlagsSchema = {
  metricsPort: intString(0, 65_535).optional(),
  metricsHost: hostName.optional(),
};

export function addMetricsOptions(cmd: Command): Command {
  return cmd
    .option(
      '--metrics-port <n>',
      'serve Prometheus metrics (OpenMetrics) at http://127.0.0.1:N/metrics (0 = any free port)',
    )
    .option(
      '--metrics-host <host>',
      'with --metrics-port: the interface to listen on (anything but loopback is warned about)',
    );
}

/** Where to serve the metrics, or null when not asked; warns when it is beyond this machine. */
export function metricsListen(
  f: { metricsPort?: number; metricsHost?: string },
  out: Output,
): { port: number; host: string } | null {
  if (f.metricsHost !== undefined && f.metricsPort === undefined)
    throw new UsageError('--metrics-host: give --metrics-port as well');
  if (f.metricsPort === undefined) return null;
  const host = f.metricsHost ?? '127.0.0.1';
  if (!isLoopbackHost(host))
    out.warn(
      `metrics on ${host}, beyond this machine: anyone who can reach it can read every agent's health. Prefer the default 127.0.0.1.`,
    );
  return { port: f.metricsPort, host };
}
