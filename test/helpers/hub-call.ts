// A hub's contract over HTTP with a member's token (the tests, the browser specs and the benches against a hub).

/** A contract request over HTTP as a member: its value, or an error naming the request, the status and the error. */
export async function hubCall<T = unknown>(
  origin: string,
  token: string,
  name: string,
  body: unknown = {},
): Promise<T> {
  const res = await fetch(`${origin}/api/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const r = (await res.json()) as { ok: boolean; value?: T; error?: unknown };
  if (!r.ok) throw new Error(`${name}: ${res.status} ${JSON.stringify(r.error)}`);
  return r.value as T;
}
