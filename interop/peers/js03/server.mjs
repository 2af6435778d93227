// A scripted A2A 0.3 agent on @a2a-js/sdk 0.3.14 and express 5, used as a
// real peer by the a2astream interop tests.
//
//   node server.mjs --port 0 --delay 60 [--rest] [--no-streaming] [--no-subscribe] [--grpc-port 0]
//     [--extended-card static|fn|none|unadvertised] [--auth-401] [--token T] [--push] [--push-timeout MS]
//
// (the modes are described in ../jsshared/scenarios.mjs; --grpc-port also serves
// A2A 0.3 over gRPC, a2a.v1.A2AService, listed in the card's additionalInterfaces)
//
// prints "A2A_PEER_GRPC=127.0.0.1:PORT" (with --grpc-port), then
// "A2A_PEER_URL=http://127.0.0.1:PORT/" once it listens on 127.0.0.1.
import { randomUUID } from 'node:crypto';
import express from 'express';
import {
  A2AError, DefaultPushNotificationSender, DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import {
  announce, bearerUserBuilder, interfaceURL, mountA2A, parseArgs, plan, run, serveGrpc, textOf,
} from '../jsshared/scenarios.mjs';

const opts = parseArgs(process.argv.slice(2));

class ScriptedExecutor {
  constructor(delay) {
    this.delay = delay;
    this.running = new Map(); // taskId -> {abort, contextId}
  }

  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const text = textOf(ctx.userMessage.parts);
    const steps = plan(text, Boolean(ctx.task));
    const abort = new AbortController();
    this.running.set(taskId, { abort, contextId });
    const artifactIds = new Map();
    const agentMessage = (t) => ({
      kind: 'message', role: 'agent', messageId: randomUUID(), taskId, contextId,
      parts: [{ kind: 'text', text: t }],
    });
    const emit = (step) => {
      switch (step.op) {
        case 'task':
          bus.publish({
            kind: 'task', id: taskId, contextId,
            status: { state: 'submitted', timestamp: new Date().toISOString() },
            history: [ctx.userMessage], artifacts: [],
          });
          break;
        case 'status':
          bus.publish({
            kind: 'status-update', taskId, contextId, final: Boolean(step.final),
            status: {
              state: step.state, timestamp: new Date().toISOString(),
              ...(step.text ? { message: agentMessage(step.text) } : {}),
            },
          });
          break;
        case 'chunk': {
          const known = artifactIds.has(step.name);
          if (!known) artifactIds.set(step.name, randomUUID());
          bus.publish({
            kind: 'artifact-update', taskId, contextId, append: known, lastChunk: step.last,
            artifact: { artifactId: artifactIds.get(step.name), name: step.name, parts: [{ kind: 'text', text: step.text }] },
          });
          break;
        }
        case 'message':
          bus.publish({ kind: 'message', role: 'agent', messageId: randomUUID(), contextId, parts: [{ kind: 'text', text: step.text }] });
          break;
      }
    };
    try {
      await run(steps, emit, abort.signal, this.delay);
      // Not when the script throws: the SDK then publishes the failure
      // itself, on a bus that must still be open.
      bus.finished();
    } finally {
      this.running.delete(taskId);
    }
  }

  async cancelTask(taskId, bus) {
    const run = this.running.get(taskId);
    run?.abort.abort();
    bus.publish({
      kind: 'status-update', taskId, contextId: run?.contextId ?? '', final: true,
      status: { state: 'canceled', timestamp: new Date().toISOString() },
    });
  }
}

const modes = [opts.rest && 'REST', !opts.streaming && 'no streaming', !opts.subscribe && 'no subscribe',
  opts.extendedCard && `extended card ${opts.extendedCard}`, opts.auth401 && 'auth 401', opts.push && 'push'].filter(Boolean);
const card = {
  name: `a2astream interop peer (@a2a-js/sdk 0.3.14${modes.map((m) => `, ${m}`).join('')})`,
  description: 'A scripted agent: the user text picks the script.',
  protocolVersion: '0.3.0',
  version: '1.0.0',
  url: 'http://127.0.0.1/', // replaced once the port is known
  preferredTransport: opts.rest ? 'HTTP+JSON' : 'JSONRPC',
  capabilities: { streaming: opts.streaming, pushNotifications: opts.push },
  supportsAuthenticatedExtendedCard: opts.extendedCard !== undefined && opts.extendedCard !== 'unadvertised',
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'script', name: 'script', description: 'Plays the scenario named in the message text.', tags: ['test'] }],
};

// The extended card: the public card and one skill more, for alice only
// (--token). The card object of static and unadvertised is filled in again
// once the server listens and the public card has its URLs.
const extendedSkill = { id: 'extended', name: 'extended', description: 'Only for signed-in callers.', tags: ['test', 'extended'] };
const extendedCard = () => ({ ...card, skills: [...card.skills, extendedSkill] });
let extendedProvider;
if (opts.extendedCard === 'static' || opts.extendedCard === 'unadvertised') extendedProvider = extendedCard();
if (opts.extendedCard === 'fn') {
  extendedProvider = async (context) => {
    if (!context?.user?.isAuthenticated) throw A2AError.unsupportedOperation('The extended card is for signed-in callers.');
    return extendedCard();
  };
}

// Push (--push): the SDK's own store and sender; the handler turns push on
// because the card says pushNotifications: true.
let pushStore, pushSender;
if (opts.push) {
  pushStore = new InMemoryPushNotificationStore();
  pushSender = new DefaultPushNotificationSender(pushStore, opts.pushTimeout !== undefined ? { timeout: opts.pushTimeout } : {});
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor(opts.delay), undefined,
  pushStore, pushSender, extendedProvider);
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
const handlerOpts = { requestHandler: handler, userBuilder: bearerUserBuilder(opts.token, UnauthenticatedUser) };
mountA2A(app, express, opts, jsonRpcHandler(handlerOpts), opts.rest ? restHandler(handlerOpts) : undefined);

let grpcAddr;
if (opts.grpcPort !== undefined) {
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService } = await import('@a2a-js/sdk/server/grpc');
  grpcAddr = await serveGrpc(grpc, opts.grpcPort, [[A2AService, grpcService(handlerOpts)]]);
}

const server = app.listen(opts.port, '127.0.0.1', () => {
  card.url = interfaceURL(server, opts);
  if (grpcAddr) {
    card.additionalInterfaces = [{ url: card.url, transport: card.preferredTransport }, { url: grpcAddr, transport: 'GRPC' }];
  }
  if (extendedProvider && typeof extendedProvider === 'object') Object.assign(extendedProvider, extendedCard());
  announce(server);
});
