// Messages: the message database behind its port, the send log, the media cache.
export { Messages } from './messages';
export type { ContactSummary, Message, MessageStore, SearchResult } from './store';
export { MessageStoreError } from './store';
export { SendLog, type SendRecord, type SendVia } from './send-log';
export { sendAndRecord } from './send';
export { messageBodies } from './inbound';
export { TunnelLogWatch } from './log-watch';
export type { CachedMedia, MediaStore } from './media-cache';
export { MessageNotifyPolicy } from './notify-policy';
