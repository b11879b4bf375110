// Messages: the send log, the inbound messages of the tunnel's deliveries, and the per-agent index.
export { Messages, type MessagesEvents, type MessagesOptions } from './messages';
export { MessageIndex, type ContactQuery, type ContactSummary, type Direction, type Message } from './message-index';
export { SendLog, parseSendLine, SEND_LOG_FILE, type SendError, type SendKind, type SendRecord, type SendVia } from './send-log';
export { sendAndRecord, sendErrorOf, sendKind, type RecordedSend } from './send';
export { contactKey, inboundOf, inboundOfBody, type InboundMessage } from './inbound';
export { DEFAULT_RETENTION_DAYS, MessageStateFile, type MessageStateData, type Tombstone } from './state';
export { TunnelLogWatch } from './log-watch';
