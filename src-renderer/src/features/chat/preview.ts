// A reply's preview in the conversation list: one line of its words, markdown's marks left out
// (heading, quote and list markers, table rules and pipes, fences, emphasis, code ticks, link targets).
const LINE_MARK = /^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)/;
const DROP_LINE = /^\s*(?:```|~~~|\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$)/;

export function plainPreview(text: string): string {
  return text
    .split('\n')
    .filter((line) => !DROP_LINE.test(line))
    .map((line) =>
      line
        .replace(LINE_MARK, '')
        .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
        .replace(/\*\*|__|~~|`/g, '')
        .replace(/(^|[\s(])[*_](?=\S)|(?<=\S)[*_](?=[\s).,;:!?]|$)/g, '$1')
        .replace(/\|/g, ' '),
    )
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}
