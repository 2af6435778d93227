// The web chat page: it posts a message, follows the conversation's event
// stream (/api/conversations/{id}/events, served by package relay) and
// renders it as it arrives. The events and their data are relay's (see
// relay/event.go): status, artifact, message, notice, input, answered, and
// one last event, end or failure. A gone event carries a snapshot of the
// whole screen: the page shows it in place of what it showed, then applies
// the events after it; one of reason "lost" (the server lost the
// conversation) is followed by a failure of kind "lost", and the page keeps
// what it shows.
"use strict";

const $ = (id) => document.getElementById(id);
const log = $("log");
const chatForm = $("chat-form");
const chatText = $("chat-text");
const answerForm = $("answer-form");
const answerText = $("answer-text");
const cancelButton = $("cancel");

let contextId = ""; // carries the agent's context from one message to the next
let current = null; // the running conversation (see follow)

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function addEntry(className, who, text) {
  const li = el("li", className);
  if (who) li.append(el("span", "who", who));
  if (text !== undefined) li.append(el("div", "", text));
  log.append(li);
  li.scrollIntoView({ block: "nearest" });
  return li;
}

function setStatus(id, text, tone) {
  const s = $(id);
  s.textContent = text;
  s.className = tone || "";
}

function setBusy(busy) {
  for (const c of chatForm.elements) if (c !== cancelButton) c.disabled = busy;
  cancelButton.hidden = !busy;
  if (!busy) chatText.focus();
}

// postJSON posts body; with key, as the Idempotency-Key, and then a
// request that got no answer (the network failed) is sent again, with the
// same key, a few times.
async function postJSON(url, body, key) {
  const headers = { "Content-Type": "application/json" };
  if (key) headers["Idempotency-Key"] = key;
  let res;
  for (let attempt = 1; ; attempt++) {
    try {
      res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
      break;
    } catch (err) {
      if (!key || attempt >= 3) throw err;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
  let out = null;
  try { out = await res.json(); } catch (_) { /* no body */ }
  if (!res.ok) {
    const err = new Error((out && out.error) || res.status + " " + res.statusText);
    err.status = res.status;
    err.body = out;
    throw err;
  }
  return out;
}

// newKey returns a random Idempotency-Key (crypto.randomUUID needs a
// secure context; getRandomValues does not).
function newKey() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

const stateTone = {
  completed: "good", "input-required": "warn", "auth-required": "warn",
  failed: "bad", rejected: "bad", canceled: "bad",
};

const errorTitle = {
  failed: "The task failed.",
  rejected: "The agent turned the task down.",
  canceled: "The task was canceled.",
  "auth-required": "The agent needs you to sign in first.",
  "no-answer": "The agent's question was not answered.",
  "connection-lost": "The connection to the agent was lost and could not be resumed.",
  "agent-error": "The agent answered with an error.",
  "http-error": "The agent's server answered with an HTTP error.",
  "protocol-error": "The agent sent something this client cannot read.",
  stopped: "The chat server stopped this conversation.",
  unresumable: "The chat server stopped this conversation, and could not resume it.",
  lost: "The chat server lost this conversation.",
};

// A conversation's screen: the list entries it added to the log, its
// panes by key (relay's ArtifactData.pane, MessageData.pane), the person's
// answers by prompt and the agent turn new panes go to.
function newView() {
  return { entries: [], panes: new Map(), answers: new Map(), turn: null, artifacts: 0 };
}

function viewEntry(conv, className, who, text) {
  const li = addEntry(className, who, text);
  conv.view.entries.push(li);
  return li;
}

function turnOf(conv) {
  if (!conv.view.turn) conv.view.turn = viewEntry(conv, "agent", "Agent");
  return conv.view.turn;
}

// paneBox adds a box for a pane to the current agent turn.
function paneBox(conv, kind, d, continued) {
  const turn = turnOf(conv);
  let box;
  if (kind === "artifact") {
    box = el("div", "artifact " + (continued ? "continued " : "") + d.id);
    if (!continued && conv.view.artifacts++ > 0) box.append(el("div", "artifact-name", d.name || d.id));
    box.body = el("span");
    box.append(box.body);
  } else {
    box = el("p", kind === "status" ? "note" : "");
    box.body = box;
  }
  box.dataset.pane = d.pane;
  turn.append(box);
  return box;
}

// write adds text to a pane, or replaces its text, as an artifact or
// message event says. A pane is shown in one box, or, when the connection
// to the agent dropped while it was written, in a box before the drop's
// notice and another after it, so that the notice sits where the cut
// happened.
function write(conv, kind, d) {
  let p = conv.view.panes.get(d.pane);
  if (!p) {
    p = { kind, boxes: [paneBox(conv, kind, d, false)], cut: false };
    conv.view.panes.set(d.pane, p);
  } else if (!d.append) {
    for (const b of p.boxes.slice(1)) b.remove();
    p.boxes.length = 1;
    p.boxes[0].body.textContent = "";
  } else if (p.cut) {
    p.boxes.push(paneBox(conv, kind, d, true));
  }
  p.cut = false;
  p.boxes[p.boxes.length - 1].body.textContent += d.text;
  conv.view.turn && conv.view.turn.scrollIntoView({ block: "nearest" });
}

function ask(conv, q) {
  conv.prompt = q.prompt;
  // The epoch of the question's event ID goes with the answer: a log lost
  // and made afresh numbers its questions from 1 again, and the server
  // refuses (410) an answer meant for the old one.
  conv.promptEpoch = conv.lastId.slice(0, conv.lastId.lastIndexOf("-"));
  conv.answerKey = newKey();
  const prompt = q.text || "(no question text)";
  turnOf(conv).append(el("p", "question", prompt));
  $("question").textContent = "The agent asks: " + prompt;
  answerForm.hidden = false;
  answerText.focus();
}

// answered shows the person's answer. A long one comes in several
// answered events, the later ones with append set.
function answered(conv, a) {
  if (conv.prompt === a.prompt) {
    conv.prompt = 0;
    answerForm.hidden = true;
  }
  const shown = conv.view.answers.get(a.prompt);
  if (shown) {
    shown.lastChild.textContent = (a.append ? shown.lastChild.textContent : "") + a.text;
    return;
  }
  conv.view.answers.set(a.prompt, viewEntry(conv, "user", "You", a.text));
  conv.view.turn = null; // the agent goes on below the answer,
  for (const p of conv.view.panes.values()) p.cut = true; // its panes too
}

function ended(conv, name, d) {
  if (name === "end") {
    if (d.contextId) contextId = d.contextId;
    setStatus("state", d.state || "answered", "good");
    setStatus("conn", "finished", "good"); // not the last notice, such as "resumed"
    viewEntry(conv, "done", "", "✓ " + (d.state || "answered"));
  } else {
    setStatus("state", d.kind, "bad");
    setStatus("conn", d.kind === "connection-lost" ? "gave up" : "closed", "bad");
    const li = viewEntry(conv, "error", "Error");
    li.append(el("strong", "", errorTitle[d.kind] || "Something went wrong."), el("div", "", d.text));
  }
  finish(conv);
}

// rebuild shows a snapshot's screen (relay's Screen) in place of what the
// conversation showed.
function rebuild(conv, screen) {
  for (const li of conv.view.entries) li.remove();
  conv.view = newView();
  conv.prompt = 0;
  answerForm.hidden = true;
  if (screen.state) setStatus("state", screen.state, stateTone[screen.state]);
  if (screen.contextId) contextId = screen.contextId;
  for (const p of screen.panes || []) {
    if (p.kind === "answer") {
      conv.view.answers.set(Number(p.key.slice("answer:".length)), viewEntry(conv, "user", "You", p.text));
      conv.view.turn = null;
      continue;
    }
    write(conv, p.kind, { pane: p.key, id: p.id, name: p.name, text: p.text, append: false });
  }
  if (screen.question) ask(conv, screen.question);
  if (screen.end) ended(conv, screen.end.name, screen.end.data);
}

function follow(id) {
  const conv = { id, source: null, view: newView(), prompt: 0, promptEpoch: "", answerKey: "", lastId: "", reopened: 0, done: false };
  current = conv;
  open(conv);
}

// open opens the conversation's event stream, after the last event seen.
// EventSource reconnects by itself, with Last-Event-ID, while the server
// answers; when it gives up (the server answered an error), the page opens
// a new one a few times, passing the last ID as lastEventId.
function open(conv) {
  let url = "/api/conversations/" + encodeURIComponent(conv.id) + "/events";
  if (conv.lastId) url += "?lastEventId=" + encodeURIComponent(conv.lastId);
  const source = new EventSource(url);
  conv.source = source;
  const on = (name, fn) => source.addEventListener(name, (e) => {
    if (conv.done) return;
    conv.lastId = e.lastEventId;
    fn(JSON.parse(e.data));
  });

  on("status", (s) => {
    conv.state = s.state;
    setStatus("state", s.state, stateTone[s.state]);
    if (s.contextId) contextId = s.contextId;
  });
  on("artifact", (a) => write(conv, "artifact", a));
  on("message", (m) => {
    // The question's status message is shown as the question.
    if (m.kind === "status" && conv.state === "input-required" && !conv.view.panes.has(m.pane)) {
      conv.view.panes.set(m.pane, { kind: "hidden", boxes: [{ body: el("p") }], cut: false });
      return;
    }
    write(conv, m.kind, m);
  });
  on("notice", (n) => {
    setStatus("conn", n.text, n.kind === "resumed" ? "good" : "warn");
    for (const p of conv.view.panes.values()) p.cut = true;
    turnOf(conv).append(el("p", "notice " + n.kind, n.kind === "resumed"
      ? "✓ resumed: the stream picked up where it left off"
      : "⟳ connection dropped, " + n.text));
  });
  on("input", (q) => ask(conv, q));
  on("answered", (a) => answered(conv, a));
  on("end", (d) => ended(conv, "end", d));
  on("failure", (x) => ended(conv, "failure", x));
  on("gone", (g) => { if (g.reason !== "lost") rebuild(conv, g.screen); });
  source.addEventListener("error", () => { // the page's own connection
    if (conv.done) return;
    if (source.readyState === EventSource.CONNECTING) {
      setStatus("conn", "page reconnecting…", "warn"); // EventSource retries by itself
      return;
    }
    source.close();
    if (conv.reopened++ < 5) {
      setStatus("conn", "page reconnecting…", "warn");
      setTimeout(() => { if (!conv.done) open(conv); }, 1000);
      return;
    }
    setStatus("conn", "lost", "bad");
    finish(conv);
  });
  source.addEventListener("open", () => {
    conv.reopened = 0;
    setStatus("conn", "connected");
  });
}

function finish(conv) {
  conv.done = true;
  if (conv.source) conv.source.close();
  if (current === conv) current = null;
  answerForm.hidden = true;
  setBusy(false);
}

chatForm.addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = chatText.value.trim();
  if (!text || current) return;
  addEntry("user", "You", text);
  chatText.value = "";
  setBusy(true);
  setStatus("state", "sending");
  try {
    const { id } = await postJSON("/api/messages", { text, contextId });
    follow(id);
  } catch (err) {
    addEntry("error", "Error", "Could not send the message: " + err.message);
    setStatus("state", "idle");
    setBusy(false);
  }
});

answerForm.addEventListener("submit", async (e) => {
  e.preventDefault();
  const conv = current;
  const text = answerText.value.trim();
  if (!text || !conv || !conv.prompt) return;
  try {
    await postJSON("/api/conversations/" + encodeURIComponent(conv.id) + "/answer",
      { prompt: conv.prompt, epoch: conv.promptEpoch, text }, conv.answerKey);
    answerText.value = "";
    answerForm.hidden = true; // the "answered" event shows the answer
  } catch (err) {
    if (err.status === 409) { // answered already, from another tab: its answered event comes
      answerText.value = "";
      answerForm.hidden = true;
      return;
    }
    addEntry("error", "Error", "Could not send the answer: " + err.message);
  }
});

cancelButton.addEventListener("click", async () => {
  const conv = current;
  if (!conv) return;
  try {
    await postJSON("/api/conversations/" + encodeURIComponent(conv.id) + "/cancel", {}, newKey());
    if (!conv.done) setStatus("state", "canceling", "warn"); // the stream may have ended meanwhile
  } catch (err) {
    addEntry("error", "Error", "Could not cancel: " + err.message);
  }
});
