// The relay-scale suite's anchor served over HTTP (issue 35): vercel's
// resumable-stream behind node's own http server, as a TypeScript chat
// backend serves it, so that its readers are measured as the relay's are.
// Run by bench/cmd/a2abench (-only relay-scale) after `npm ci` here, as
//
//   node --expose-gc serve.mjs <redis URL>
//
// One stream in this process: a producer (resumableStream) whose chunks are
// SSE events, "data: <text>\n\n", the text of a stamped chunk carrying the
// wall clock of its write ("t=<Unix ns>;"). The server listens on
// 127.0.0.1, an ephemeral port; GET /events?skip=<characters> resumes the
// stream (resumeExistingStream with skipCharacters), writes one SSE comment
// so that the reader knows it is attached, then pipes the resumed stream
// into the response, with backpressure, until the reader leaves.
//
// The parent drives the script with one JSON command a line on stdin and
// reads one JSON reply a line on stdout. First, unasked, the script writes
// 20 events and says {port, middle} (middle: the characters of the first 10
// events). Then:
//
//   {"op":"more"}            10 more events; replies {want, written}: the
//                            text a reader from the middle must get, and the
//                            characters written so far.
//   {"op":"mem"}             two GCs; replies {heap, external, rss} (bytes).
//   {"op":"paced","n","every"} n stamped events, one every <every> ms.
//   {"op":"burst","n"}       n stamped events back to back; replies {t0}, the
//                            wall clock (Unix ns, a string) before the first.
//
// The script ends the stream and exits when its stdin closes.
import http from "node:http";
import readline from "node:readline";
import { nowNS, openProducer, sleep, stamp } from "./producer.mjs";

const [url] = process.argv.slice(2);

const reply = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const { ctx, id, push, finish } = await openProducer(url, "a2abench-served-" + process.pid);

let text = "";
const write = (data) => {
  const e = "data: " + data + "\n\n";
  text += e;
  push(e);
};

const server = http.createServer(async (req, res) => {
  const u = new URL(req.url, "http://127.0.0.1");
  if (req.method !== "GET" || u.pathname !== "/events") {
    res.writeHead(404).end();
    return;
  }
  const skip = Number(u.searchParams.get("skip") ?? "0");
  let stream;
  try {
    stream = await ctx.resumeExistingStream(id, skip);
  } catch (e) {
    res.writeHead(500).end(String(e));
    return;
  }
  if (!stream) {
    res.writeHead(204).end();
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(": resumed\n\n");
  const r = stream.getReader();
  let gone = false;
  res.on("close", () => {
    gone = true;
    r.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { done, value } = await r.read();
      if (done || gone) break;
      if (!res.write(value)) {
        await new Promise((ok) => {
          res.once("drain", ok);
          res.once("close", ok);
        });
      }
    }
  } catch {
    // The reader left, or the stream failed: the response ends.
  }
  res.end();
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));

let middle = 0;
for (let i = 0; i < 20; i++) {
  write("chunk " + i + ";");
  if (i === 9) middle = text.length;
}
await sleep(50);
reply({ port: server.address().port, middle });

const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const c = JSON.parse(line);
  switch (c.op) {
    case "more":
      for (let i = 20; i < 30; i++) write("chunk " + i + ";");
      reply({ want: text.slice(middle), written: text.length });
      break;
    case "mem": {
      globalThis.gc?.();
      globalThis.gc?.();
      const m = process.memoryUsage();
      reply({ heap: m.heapUsed, external: m.external, rss: m.rss });
      break;
    }
    case "paced":
      for (let i = 0; i < c.n; i++) {
        write(stamp());
        await sleep(c.every);
      }
      reply({});
      break;
    case "burst": {
      const t0 = nowNS();
      for (let i = 0; i < c.n; i++) write(stamp());
      reply({ t0: String(t0) });
      break;
    }
    default:
      reply({ err: "unknown op " + c.op });
  }
}
finish();
server.closeAllConnections?.();
server.close();
await sleep(100);
process.exit(0);
