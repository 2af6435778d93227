// The web chat page: it posts a message, follows the conversation's event
// stream (/api/conversations/{id}/events) and renders it as it arrives.
"use strict";

const $ = (id) => document.getElementById(id);
const log = $("log");
const chatForm = $("chat-form");
const chatText = $("chat-text");
const answerForm = $("answer-form");
const answerText = $("answer-text");

let contextId = ""; // carries the agent's context from one message to the next
let current = null; // the running conversation: {id, source, turn}

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
  for (const c of chatForm.elements) c.disabled = busy;
  if (!busy) chatText.focus();
}

async function postJSON(url, body) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    let msg = res.status + " " + res.statusText;
    try { msg = (await res.json()).error || msg; } catch (_) { /* not JSON */ }
    throw new Error(msg);
  }
  return res.status === 204 ? null : res.json();
}

// An agent turn: one list entry holding the agent's notes, messages and
// artifacts, in the order they first appear.
function newTurn() {
  const li = addEntry("agent", "Agent");
  return { li, artifacts: new Map(), lastNote: "" };
}

// turnNote shows a status message, under its ID when it has one, so that
// its later versions (message events) find it.
function turnNote(turn, text, id) {
  if (!text || text === turn.lastNote) return;
  turn.lastNote = text;
  const p = el("p", "note", text);
  if (id) p.dataset.id = id;
  turn.li.append(p);
}

function artifactBox(turn, className) {
  const box = el("div", className);
  box.body = el("span");
  box.append(box.body);
  turn.li.append(box);
  return box;
}

// An artifact is shown in one box, or, when the connection dropped while
// it was being written, in a box before the drop's notice and another
// after it, so that the notice sits where the cut happened.
function turnArtifact(turn, a) {
  let art = turn.artifacts.get(a.id);
  if (!art) {
    art = { boxes: [], cut: false };
    const box = artifactBox(turn, "artifact " + a.id);
    if (turn.artifacts.size > 0) box.prepend(el("div", "artifact-name", a.name || a.id));
    art.boxes.push(box);
    turn.artifacts.set(a.id, art);
  } else if (!a.append) {
    // A new version replaces the artifact whole, in its first box.
    for (const b of art.boxes.slice(1)) b.remove();
    art.boxes.length = 1;
    art.boxes[0].body.textContent = "";
  } else if (art.cut) {
    art.boxes.push(artifactBox(turn, "artifact continued " + a.id));
  }
  art.cut = false;
  const box = art.boxes[art.boxes.length - 1];
  box.body.textContent += a.text;
  turn.li.scrollIntoView({ block: "nearest" });
}

// cutArtifacts marks the turn's artifacts as cut by a connection drop: what
// comes next goes below the notice.
function cutArtifacts(turn) {
  for (const art of turn.artifacts.values()) art.cut = true;
}

const stateTone = {
  completed: "good", "input-required": "warn", "auth-required": "warn",
  failed: "bad", rejected: "bad", canceled: "bad",
};

function follow(id) {
  const source = new EventSource("/api/conversations/" + encodeURIComponent(id) + "/events");
  const conv = { id, source, turn: newTurn() };
  current = conv;
  const on = (name, fn) => source.addEventListener(name, (e) => fn(JSON.parse(e.data)));

  on("status", (s) => {
    setStatus("state", s.state, stateTone[s.state]);
    if (s.contextId) contextId = s.contextId;
    if (s.state !== "input-required") turnNote(conv.turn, s.text, s.id);
  });
  on("artifact", (a) => turnArtifact(conv.turn, a));
  on("message", (m) => {
    // A later version of a message (or status note) shown under its ID adds
    // to it, or replaces it.
    const old = m.id && log.querySelector(`p[data-id="${CSS.escape(m.id)}"]`);
    if (old) {
      old.textContent = m.append ? old.textContent + m.text : m.text;
      if (old.classList.contains("note") && conv.turn.li.contains(old)) conv.turn.lastNote = old.textContent;
      return;
    }
    const p = el("p", "", m.text);
    if (m.id) p.dataset.id = m.id;
    conv.turn.li.append(p);
  });
  on("notice", (n) => {
    setStatus("conn", n.text, n.kind === "resumed" ? "good" : "warn");
    cutArtifacts(conv.turn);
    conv.turn.li.append(el("p", "notice " + n.kind, n.kind === "resumed"
      ? "✓ resumed: the stream picked up where it left off"
      : "⟳ connection dropped, " + n.text));
  });
  on("input", (q) => {
    const prompt = q.prompt || "(no question text)";
    conv.turn.li.append(el("p", "question", prompt));
    $("question").textContent = "The agent asks: " + prompt;
    answerForm.hidden = false;
    answerText.focus();
  });
  on("answered", (a) => {
    answerForm.hidden = true;
    addEntry("user", "You", a.text);
    conv.turn = newTurn(); // the agent goes on below the answer
  });
  on("done", (d) => {
    if (d.contextId) contextId = d.contextId;
    setStatus("state", d.state || "answered", "good");
    setStatus("conn", "finished", "good"); // not the last notice, such as "resumed"
    if (d.text) turnNote(conv.turn, d.text);
    addEntry("done", "", "✓ " + (d.state || "answered"));
    finish();
  });
  on("stream-error", (x) => {
    setStatus("state", x.kind, "bad");
    setStatus("conn", x.kind === "connection-lost" ? "gave up" : "closed", "bad"); // not "reconnecting (3/3)"
    const li = addEntry("error", "Error");
    li.append(el("strong", "", x.title), el("div", "", x.text));
    finish();
  });
  source.addEventListener("error", () => { // the page's own connection
    if (source.readyState === EventSource.CONNECTING) {
      setStatus("conn", "page reconnecting…", "warn"); // EventSource retries by itself
    } else {
      setStatus("conn", "lost", "bad");
      finish();
    }
  });
  source.addEventListener("open", () => setStatus("conn", "connected"));
}

function finish() {
  if (current) current.source.close();
  current = null;
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
  const text = answerText.value.trim();
  if (!text || !current) return;
  try {
    await postJSON("/api/conversations/" + encodeURIComponent(current.id) + "/answer", { text });
    answerText.value = "";
    answerForm.hidden = true; // the "answered" event shows the answer
  } catch (err) {
    addEntry("error", "Error", "Could not send the answer: " + err.message);
  }
});
