// The monitor sees a drop only when a poll falls inside it: one sentence for the screens that say so.

/** What a poll interval of `pollSec` seconds can miss. */
export function detectionWindow(pollSec: number): string {
  return `Drops shorter than about ${pollSec} s can be missed at a ${pollSec} s poll.`;
}
