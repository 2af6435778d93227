// What the anchor's two scripts share: the stamped chunk text and one
// resumable stream whose chunks the script pushes.
import { createClient } from "redis";
import { createResumableStreamContext } from "resumable-stream";

// nowNS is the wall clock in Unix nanoseconds.
export const nowNS = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e3)) * 1000n;

// stamp is a chunk of about 48 characters whose text carries the time of
// its write ("t=<Unix ns>;"), as the relay rows' entries do.
export const stamp = () => {
  let s = "t=" + nowNS() + ";";
  while (s.length < 48) s += " token";
  return s;
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// openProducer connects a publisher and a subscriber to url and starts the
// stream "anchor" in a context of keys under prefix: push(s) writes a
// chunk, finish() ends the stream. The producer's own copy is drained, as
// a backend's first response would be.
export async function openProducer(url, prefix) {
  const publisher = createClient({ url });
  const subscriber = createClient({ url });
  await publisher.connect();
  await subscriber.connect();
  const ctx = createResumableStreamContext({ waitUntil: null, publisher, subscriber, keyPrefix: prefix });
  let push, finish;
  const source = new ReadableStream({
    start(c) {
      push = (s) => c.enqueue(s);
      finish = () => c.close();
    },
  });
  const id = "anchor";
  const own = await ctx.resumableStream(id, () => source);
  (async () => { const r = own.getReader(); while (!(await r.read()).done); })();
  return { ctx, id, push, finish };
}
