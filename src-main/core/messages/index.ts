// Messages: the send log, the inbound messages of the tunnel's deliveries, and the per-agent index.
export { Messages } from './messages';
export type { ContactSummary, Message } from './message-index';
export { SendLog, type SendRecord, type SendVia } from './send-log';
export { sendAndRecord } from './send';
export { contactKey, messageBodies } from './inbound';
export { TunnelLogWatch } from './log-watch';
export type { CachedMedia } from './media-cache';
export { MessageNotifyPolicy } from './notify-policy';
