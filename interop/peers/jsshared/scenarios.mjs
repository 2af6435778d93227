// Scenario scripts shared by the two @a2a-js/sdk peers (js03 and js10).
// This file has no dependencies: each server imports it by relative path and
// turns the abstract steps into the event shapes of its SDK version.
//
// A step is one of
//   {op: 'task'}                                  the initial Task (submitted)
//   {op: 'status', state, text, final}            a status update (0.3 state names)
//   {op: 'chunk', name, text, last}               an artifact chunk; the first chunk
//                                                 of a name is append=false
//   {op: 'message', text}                         an agent Message (no task)
//   {op: 'waitCancel'}                            park until tasks/cancel (or ~400 delays)
// and `factor` says how many delays to pause before it.

export function parseArgs(argv) {
  const opts = { port: 0, delay: 60, legacy: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port') opts.port = Number(argv[++i]);
    else if (a === '--delay') opts.delay = Number(argv[++i]);
    else if (a === '--legacy') opts.legacy = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

// bigText is the deterministic 2 MiB text of the "big" scenario (the same
// bytes as the a2a-go peer's).
export function bigText() {
  const line = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_\n';
  return line.repeat((2 << 20) / line.length);
}

const s = (op, fields = {}, factor = 1) => ({ op, factor, ...fields });

// plan returns the steps for the user's text; followUp is true when the
// message continues an existing task (the answer to input-required).
export function plan(text, followUp) {
  const t = text.toLowerCase();
  if (followUp) {
    return [
      s('status', { state: 'working' }),
      s('chunk', { name: 'result', text: 'Booked ', last: false }),
      s('chunk', { name: 'result', text: `for ${text}.`, last: true }),
      s('status', { state: 'completed', final: true }),
    ];
  }
  if (t.includes('message')) return [s('message', { text: 'pong: a message, not a task' })];
  const working = s('status', { state: 'working' });
  const task = s('task', {}, 0);
  if (t.includes('cancel')) {
    return [task, working, s('chunk', { name: 'log', text: 'started; ', last: false }), s('waitCancel', {}, 0),
      s('chunk', { name: 'log', text: 'never canceled.', last: true }),
      s('status', { state: 'completed', final: true })];
  }
  if (t.includes('reject')) return [task, s('status', { state: 'rejected', text: 'I will not do that.', final: true })];
  if (t.includes('auth')) {
    return [task, working, s('chunk', { name: 'log', text: 'needs credentials', last: true }),
      s('status', { state: 'auth-required', text: 'Please sign in to the calendar.', final: true })];
  }
  if (t.includes('fail')) {
    return [task, working, s('chunk', { name: 'log', text: 'step 1 ok', last: true }),
      s('status', { state: 'failed', text: 'upstream API timed out', final: true })];
  }
  if (t.includes('big')) {
    return [task, working, s('chunk', { name: 'blob', text: bigText(), last: true }),
      s('status', { state: 'completed', final: true })];
  }
  if (t.includes('input')) {
    return [task, working, s('chunk', { name: 'draft', text: 'Planning the trip.', last: true }),
      s('status', { state: 'input-required', text: 'Which dates?', final: true })];
  }
  const f = t.includes('slow') ? 5 : 1;
  return [task,
    s('status', { state: 'working' }, f),
    s('chunk', { name: 'story', text: 'Once upon a time, ', last: false }, f),
    s('chunk', { name: 'story', text: 'a gopher ', last: false }, f),
    s('chunk', { name: 'story', text: 'met a node.', last: true }, f),
    s('chunk', { name: 'summary', text: 'A short story.', last: true }, f),
    s('status', { state: 'completed', final: true }, f)];
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(true); }, ms);
    const onAbort = () => { clearTimeout(timer); resolve(false); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

// run plays steps through emit, pausing factor × delay ms before each; it
// stops early when signal aborts (tasks/cancel).
export async function run(steps, emit, signal, delay) {
  for (const step of steps) {
    const wait = step.op === 'waitCancel' ? 400 * delay : step.factor * delay;
    if (wait > 0 && !(await sleep(wait, signal))) return;
    if (step.op !== 'waitCancel') emit(step);
  }
}

// textOf joins the text of a user message's parts, whichever shape they have.
export function textOf(parts) {
  return (parts || []).map((p) => (p.kind === 'text' ? p.text : p.content?.$case === 'text' ? p.content.value : '')).join('');
}

export function announce(server) {
  const { port } = server.address();
  process.stdout.write(`A2A_PEER_URL=http://127.0.0.1:${port}/\n`);
}
