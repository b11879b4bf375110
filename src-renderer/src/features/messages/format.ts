// The day a message was written, as the thread's day separators show it (its time: formatTimeOfDay).

export const dayOf = (at: number) =>
  new Date(at).toLocaleDateString(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
