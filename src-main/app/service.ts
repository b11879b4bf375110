// The service's client, for the commands that talk to a service directly rather than through a companion
// (pairing, sending, settings, chat, status with --base-url): its factory, its options, the wire types those
// commands read, and the service's rules for a recipient's number.
export { createServiceClient } from '../core/api/client';
export type { ServiceClient, ServiceClientOptions } from '../core/api/service';
export type {
  ChannelSettings,
  ChatResult,
  ChatStreamEvent,
  RawResponse,
  SendRequest,
  SessionStatus,
} from '../core/api/types';
export { normalizePhoneDigits, normalizeRecipient } from '../core/api/phone';
