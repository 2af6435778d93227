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
//   {op: 'throw', text}                           the executor throws Error(text)
// and `factor` says how many delays to pause before it.

// The modes a peer can serve, besides the default (JSON-RPC at /, streaming,
// with resubscribe):
//   --rest          the SDK's restHandler (HTTP+JSON) under /rest, and no
//                   JSON-RPC; the card offers HTTP+JSON only
//   --no-streaming  the card says capabilities.streaming: false (the SDK's
//                   handler then refuses streaming sends and subscribes)
//   --no-subscribe  resubscribe is not served: JSON-RPC answers the method
//                   as unknown (the SDK's own -32601), and REST has no
//                   :subscribe route (express's 404 page)
//   --grpc-port N   also serve A2A over gRPC on 127.0.0.1:N (0: a free port),
//                   beside the HTTP interface, with the same request handler
//                   (see serveGrpc)
// and, for the optional features (push notifications, the extended card):
//   --extended-card MODE  static: the card offers the extended card and the
//                   SDK gets it as a card object (the SDK's own rule: the
//                   extended card to an authenticated caller, the public card
//                   to anyone else); fn: it gets a function that returns the
//                   extended card to an authenticated caller and throws the
//                   SDK's unsupported-operation error (-32004) otherwise;
//                   none: the card offers it, and the SDK gets no provider
//                   (-32007); unadvertised: a provider, but the card does not
//                   offer it (-32004)
//   --auth-401      an extended-card call without the right bearer token is
//                   answered 401 with WWW-Authenticate before the SDK sees it
//   --token T       the bearer token of the one authenticated user, alice
//                   (default s3cret): the SDK's UserBuilder makes every other
//                   caller unauthenticated
//   --push          the card says pushNotifications: true, and the handler
//                   gets the SDK's in-memory push config store and its
//                   default sender (with js10 --legacy, the sender that also
//                   writes 0.3 bodies)
//   --push-timeout MS  the sender's timeout per POST (default the SDK's 5000)
export const EXTENDED_CARD_MODES = ['static', 'fn', 'none', 'unadvertised'];

export function parseArgs(argv) {
  const opts = {
    port: 0, delay: 60, legacy: false, rest: false, streaming: true, subscribe: true, grpcPort: undefined,
    extendedCard: undefined, auth401: false, token: 's3cret', push: false, pushTimeout: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port') opts.port = Number(argv[++i]);
    else if (a === '--delay') opts.delay = Number(argv[++i]);
    else if (a === '--legacy') opts.legacy = true;
    else if (a === '--rest') opts.rest = true;
    else if (a === '--no-streaming') opts.streaming = false;
    else if (a === '--no-subscribe') opts.subscribe = false;
    else if (a === '--grpc-port') opts.grpcPort = Number(argv[++i]);
    else if (a === '--extended-card') opts.extendedCard = argv[++i];
    else if (a === '--auth-401') opts.auth401 = true;
    else if (a === '--token') opts.token = argv[++i];
    else if (a === '--push') opts.push = true;
    else if (a === '--push-timeout') opts.pushTimeout = Number(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  if (opts.extendedCard !== undefined && !EXTENDED_CARD_MODES.includes(opts.extendedCard)) {
    throw new Error(`--extended-card ${opts.extendedCard}: want one of ${EXTENDED_CARD_MODES.join(', ')}`);
  }
  if (!opts.token) throw new Error('--token needs a value');
  if (opts.pushTimeout !== undefined && !(opts.pushTimeout > 0)) throw new Error('--push-timeout needs a number of ms above 0');
  return opts;
}

// bearerUserBuilder is a UserBuilder of the SDK's express handlers and
// gRPC services: `Authorization: Bearer <token>` (a header, or gRPC
// metadata) is the authenticated user alice, any other caller (no header,
// another token, another scheme) the SDK's UnauthenticatedUser. The SDK
// scopes tasks by user, so alice sees her own tasks only.
export function bearerUserBuilder(token, UnauthenticatedUser) {
  const alice = { isAuthenticated: true, userName: 'alice' };
  return (reqOrCall) => Promise.resolve(hasBearer(reqOrCall, token) ? alice : new UnauthenticatedUser());
}

// hasBearer reports whether an express request, or a gRPC call (the SDKs'
// gRPC services hand their UserBuilder the call), carries `Authorization:
// Bearer <token>`.
function hasBearer(reqOrCall, token) {
  const auth = typeof reqOrCall.get === 'function'
    ? reqOrCall.get('authorization')
    : reqOrCall.metadata?.get?.('authorization')?.[0];
  return auth === `Bearer ${token}`;
}

// The JSON-RPC methods and REST paths (under the interface's base) that ask
// for the extended card, in 0.3 and 1.0.
const EXTENDED_CARD_METHODS = new Set(['agent/getAuthenticatedExtendedCard', 'GetExtendedAgentCard']);
const EXTENDED_CARD_PATHS = new Set(['/v1/card', '/extendedAgentCard']);

// auth401 returns an express middleware for the interface (mounted where
// mountA2A mounts it) that answers an extended-card call without
// `Authorization: Bearer <token>` with 401, `WWW-Authenticate: Bearer
// realm="a2a-probe"` and {"error":"unauthorized"}, before the SDK sees it,
// as an authenticating proxy in front of an agent would. Other calls pass.
export function auth401(express, opts) {
  const json = express.json({ limit: '100kb' });
  const refuse = (res) => res.status(401).set('WWW-Authenticate', 'Bearer realm="a2a-probe"').json({ error: 'unauthorized' });
  return (req, res, next) => {
    if (hasBearer(req, opts.token)) return next();
    if (opts.rest) return req.method === 'GET' && EXTENDED_CARD_PATHS.has(req.path) ? refuse(res) : next();
    if (req.method !== 'POST') return next();
    // The SDK's own JSON parser leaves a body parsed here alone.
    json(req, res, (err) => {
      if (err) return next(err);
      return EXTENDED_CARD_METHODS.has(req.body?.method) ? refuse(res) : next();
    });
  };
}

// The JSON-RPC methods that subscribe to a task, in 0.3 and 1.0.
const SUBSCRIBE_METHODS = new Set(['tasks/resubscribe', 'SubscribeToTask']);

// mountA2A mounts the agent's interface on app: jsonRpc at / (rest false),
// or rest under /rest. With subscribe false, the subscribe method is taken
// away: JSON-RPC requests for it reach the SDK under a method name it does
// not know, so that the SDK itself answers method-not-found; REST requests
// for a :subscribe path skip the SDK's router and end in express's own 404.
//
// With opts.auth401, the auth401 middleware goes in front of either.
export function mountA2A(app, express, opts, jsonRpc, rest) {
  if (opts.auth401) app.use(opts.rest ? '/rest' : '/', auth401(express, opts));
  if (opts.rest) {
    app.use('/rest', (req, res, next) => {
      if (!opts.subscribe && /:subscribe$/.test(req.path)) return next();
      return rest(req, res, next);
    });
    return;
  }
  if (!opts.subscribe) {
    app.use('/', express.json({ limit: '100kb' }), (req, _res, next) => {
      if (req.method === 'POST' && SUBSCRIBE_METHODS.has(req.body?.method)) req.body.method += ' (not served)';
      next();
    });
  }
  app.use('/', jsonRpc);
}

// interfaceURL is where the card says the interface is, once the port is
// known.
export function interfaceURL(server, opts) {
  return `http://127.0.0.1:${server.address().port}/${opts.rest ? 'rest' : ''}`;
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
  // The executor throws after Task and working: the SDK, not the script,
  // ends the task (with a failed status event).
  if (t.includes('error')) return [s('task', {}, 0), s('status', { state: 'working' }), s('throw', { text: 'scripted executor error' })];
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
    if (step.op === 'throw') throw new Error(step.text);
    if (step.op !== 'waitCancel') emit(step);
  }
}

// textOf joins the text of a user message's parts, whichever shape they have.
export function textOf(parts) {
  return (parts || []).map((p) => (p.kind === 'text' ? p.text : p.content?.$case === 'text' ? p.content.value : '')).join('');
}

// serveGrpc binds a gRPC server (grpc is the peer's @grpc/grpc-js) on
// 127.0.0.1:port with each [descriptor, implementation] of services, prints
// "A2A_PEER_GRPC=127.0.0.1:PORT" and resolves to that address. The peers call
// it before announce, so that the line comes before A2A_PEER_URL.
export function serveGrpc(grpc, port, services) {
  const server = new grpc.Server();
  for (const [descriptor, impl] of services) server.addService(descriptor, impl);
  return new Promise((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
      if (err) return reject(err);
      const addr = `127.0.0.1:${bound}`;
      process.stdout.write(`A2A_PEER_GRPC=${addr}\n`);
      resolve(addr);
    });
  });
}

export function announce(server) {
  const { port } = server.address();
  process.stdout.write(`A2A_PEER_URL=http://127.0.0.1:${port}/\n`);
}
