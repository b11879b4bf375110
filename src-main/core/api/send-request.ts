// Checks an outbound message before any request: recipient, some content, one kind of media,
// http(s) URLs. Returns the body to send with `to` normalised.
import { httpUrlProblem } from '../url';
import { InvalidRequest } from './errors';
import { normalizeRecipient } from './phone';
import type { SendRequest } from './types';

function bad(message: string): InvalidRequest {
  return new InvalidRequest({ message });
}

function checkUrl(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw bad(`${field} must be a URL string.`);
  const problem = httpUrlProblem(value.trim());
  if (problem !== null) throw bad(`${field} ${problem}.`);
  return new URL(value.trim()).toString();
}

export function prepareSendRequest(req: SendRequest | undefined): SendRequest {
  if (typeof req !== 'object' || req === null) throw bad('The message is missing.');
  if (req.to === undefined || req.to === null || (typeof req.to === 'string' && req.to.trim() === '')) {
    throw bad('"to" is required: a phone number with its country code, or a full JID.');
  }
  const to = normalizeRecipient(req.to);
  if (req.text !== undefined && typeof req.text !== 'string') throw bad('"text" must be a string.');
  const text = req.text !== undefined && req.text.trim() !== '' ? req.text : undefined;
  const imageUrl = checkUrl(req.imageUrl, 'imageUrl');
  const documentUrl = checkUrl(req.documentUrl, 'documentUrl');
  if (imageUrl && documentUrl) throw bad('Give either imageUrl or documentUrl, not both.');
  if (!text && !imageUrl && !documentUrl) throw bad('The message has no content: give text, imageUrl or documentUrl.');
  if (req.documentFilename !== undefined && typeof req.documentFilename !== 'string')
    throw bad('"documentFilename" must be a string.');
  const out: SendRequest = { to };
  if (text !== undefined) out.text = text;
  if (imageUrl) out.imageUrl = imageUrl;
  if (documentUrl) {
    out.documentUrl = documentUrl;
    if (req.documentFilename && req.documentFilename.trim() !== '') out.documentFilename = req.documentFilename;
  }
  return out;
}
