// A recorded chat token stream in the emulator's shape (ASSUMPTION A-CHAT-STREAM), with the things
// a decoder must survive: multi-byte UTF-8, a comment, a retry line, CRLF line ends, a JSON token
// holding an escaped newline, and the done event carrying the chat response.
export const SAMPLE_TOKENS = ['Hé', 'llo', ' wörld', ' 👋', '\n', 'ok', ' — 完了'];

export const SAMPLE_RESULT = {
  reply: SAMPLE_TOKENS.join(''),
  conversationId: 'conv_sample_1',
  actions: [{ name: 'lookup_order', orderId: 7 }],
  usage: { inputTokens: 3, outputTokens: SAMPLE_TOKENS.length, totalTokens: 3 + SAMPLE_TOKENS.length },
};

export function sampleStream(): Buffer {
  const parts: string[] = [': stream opened\n\n', 'retry: 3000\n\n'];
  SAMPLE_TOKENS.forEach((t, i) => {
    const eol = i % 2 === 0 ? '\n' : '\r\n';
    parts.push(`event: token${eol}data: ${JSON.stringify({ token: t })}${eol}${eol}`);
  });
  parts.push(`event: done\ndata: ${JSON.stringify(SAMPLE_RESULT)}\n\n`);
  return Buffer.from(parts.join(''), 'utf8');
}

/** A large stream of n tokens (for the benchmark). */
export function largeStream(n: number): { bytes: Buffer; tokens: number } {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`event: token\ndata: {"token":"tok${i % 1000} "}\n\n`);
  parts.push(`event: done\ndata: {"reply":"","conversationId":"c","actions":[],"usage":{"totalTokens":${n}}}\n\n`);
  return { bytes: Buffer.from(parts.join(''), 'utf8'), tokens: n };
}
