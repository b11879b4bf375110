// The local signed-webhook tunnel: public API for the app, the browser host and the CLI.
export { Tunnel, TunnelError, isLoopback } from './tunnel';
export type { TunnelOptions, StartOptions, ForwardConfig, TriggerOptions, TriggerResult, TunnelEvents } from './tunnel';
export { EventLog, DEFAULT_BOUNDS, isFinalStatus, forwardStateOf } from './log';
export type { DeliveryQuery, LogBounds, EventLogOptions } from './log';
export { verifyOnly, verifyTunnelDelivery, summarize } from './verify';
export type { TunnelVerifyResult } from './verify';
export { registerWebhook } from './register';
export type { RegisterOptions } from './register';
export { composeInboundEvent, signedRequest, simulateInputSchema } from './simulate';
export type { SimulateInput } from './simulate';
export { toCurl, toFixture, shellQuote } from './export';
export type { CurlOptions, DeliveryFixture } from './export';
export { ReplayError } from './replay';
export type { ReplayOptions } from './replay';
export { DEFAULT_FORWARD_TIMEOUT_MS } from './forwarder';
export type { AgentForwardStatus } from './forwarder';
export { createUndiciTransport } from './transport';
export type { Transport, ForwardRequest, ForwardResponse } from './transport';
export { DEFAULT_BODY_LIMIT, DEFAULT_AGENT_ID, agentIdSchema } from './receiver';
export type { InvalidResponse } from './ingest';
export {
  TUNNEL_HEADER,
  DELIVERY_HEADER,
  REPLAY_HEADER,
  SIMULATED_HEADER,
  RESIGNED_HEADER,
  DEFAULT_TUNNEL_NAME,
} from './headers';
export * from './types';
