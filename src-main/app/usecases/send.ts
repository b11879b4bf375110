// Sending a message: the send, and its record in the data folder's send log.
export { SendLog, sendAndRecord } from '../../core/messages';
