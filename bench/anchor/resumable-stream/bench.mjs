// The relay-scale suite's anchor (issue 35): vercel's resumable-stream on
// the suite's redis-server, driven as the suite drives the relay. Run by
// bench/cmd/a2abench (-only relay-scale) after `npm ci` here, as
//
//   node --expose-gc bench.mjs <redis URL> <readers> <paced> <every ms> <burst>
//
// One stream in this process: a producer (resumableStream) writes chunks of
// about 48 characters whose text carries the wall clock of their write
// ("t=<Unix ns>;"); a reader that resumes from the middle checks that it gets
// exactly the rest; then <readers> readers resume the stream
// (resumeExistingStream, skipping what was written), and the script prints
// one line of JSON: the memory per idle reader (heapUsed and RSS deltas after
// two GCs), the latency of <paced> chunks written every <every> ms (p50,
// p99, ms, from the write to each reader's receipt) and the chunks/s
// delivered to all readers of <burst> chunks written back to back.
import { nowNS, openProducer, sleep, stamp } from "./producer.mjs";

const [url, readersArg, pacedArg, everyArg, burstArg] = process.argv.slice(2);
const readers = Number(readersArg), paced = Number(pacedArg), every = Number(everyArg), burst = Number(burstArg);

const gc = () => { globalThis.gc?.(); globalThis.gc?.(); };
const mem = () => { gc(); const m = process.memoryUsage(); return { heap: m.heapUsed, rss: m.rss }; };

// The producer: a stream whose chunks the script pushes.
const { ctx, id, push, finish } = await openProducer(url, "a2abench-" + process.pid);

// A reader that resumes from the middle gets exactly the rest.
const first = [];
for (let i = 0; i < 20; i++) { const s = "chunk " + i + ";"; first.push(s); push(s); }
await sleep(50);
const middle = first.slice(0, 10).join("").length;
const resumed = await ctx.resumeExistingStream(id, middle);
const rest = [];
for (let i = 20; i < 30; i++) { const s = "chunk " + i + ";"; first.push(s); push(s); }
let got = "";
const want = first.join("").slice(middle);
{
  const r = resumed.getReader();
  const deadline = Date.now() + 5000;
  while (got.length < want.length && Date.now() < deadline) {
    const v = await Promise.race([r.read(), sleep(100).then(() => null)]);
    if (v && !v.done) got += v.value;
  }
  r.cancel().catch(() => {});
}
const resumeOK = got === want;
const written = first.join("").length;

// Readers per process: memory per idle reader.
let events = 0, last = 0n;
const lat = [];
const before = mem();
const streams = [];
for (let i = 0; i < readers; i++) {
  const s = await ctx.resumeExistingStream(id, written);
  streams.push(s);
}
await sleep(200);
for (const s of streams) {
  (async () => {
    const r = s.getReader();
    for (;;) {
      const { done, value } = await r.read();
      if (done) return;
      const t = nowNS();
      for (const m of value.matchAll(/t=(\d+);/g)) {
        events++;
        if (t > last) last = t;
        lat.push(Number(t - BigInt(m[1])) / 1e6);
      }
    }
  })();
}
const after = mem();

const waitFor = async (n, ms) => {
  const deadline = Date.now() + ms;
  while (events < n && Date.now() < deadline) await sleep(5);
};
// Paced: the latencies.
for (let i = 0; i < paced; i++) { push(stamp()); await sleep(every); }
await waitFor(readers * paced, 60000);
const pacedEvents = events;
lat.sort((a, b) => a - b);
const q = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.ceil(p * lat.length) - 1)] : null);
const p50 = q(0.5), p99 = q(0.99);
// Burst: chunks/s delivered to all readers.
events = 0; last = 0n;
const t0 = nowNS();
for (let i = 0; i < burst; i++) push(stamp());
await waitFor(readers * burst, 120000);
const delivered = last > t0 ? events / (Number(last - t0) / 1e9) : null;

console.log(JSON.stringify({
  version: "2.2",
  readers,
  resumeOK,
  heapPer: (after.heap - before.heap) / readers,
  rssPer: (after.rss - before.rss) / readers,
  p50, p99,
  pacedEvents, pacedWant: readers * paced,
  burstEvents: events, burstWant: readers * burst,
  delivered,
}));
finish();
await sleep(100);
process.exit(0);
