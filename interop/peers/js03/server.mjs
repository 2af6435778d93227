// A scripted A2A 0.3 agent on @a2a-js/sdk 0.3.14 and express 5, used as a
// real peer by the a2astream interop tests.
//
//   node server.mjs --port 0 --delay 60 [--rest] [--no-streaming] [--no-subscribe] [--grpc-port 0]
//
// (the modes are described in ../jsshared/scenarios.mjs; --grpc-port also serves
// A2A 0.3 over gRPC, a2a.v1.A2AService, listed in the card's additionalInterfaces)
//
// prints "A2A_PEER_GRPC=127.0.0.1:PORT" (with --grpc-port), then
// "A2A_PEER_URL=http://127.0.0.1:PORT/" once it listens on 127.0.0.1.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { announce, interfaceURL, mountA2A, parseArgs, plan, run, serveGrpc, textOf } from '../jsshared/scenarios.mjs';

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

const modes = [opts.rest && 'REST', !opts.streaming && 'no streaming', !opts.subscribe && 'no subscribe'].filter(Boolean);
const card = {
  name: `a2astream interop peer (@a2a-js/sdk 0.3.14${modes.map((m) => `, ${m}`).join('')})`,
  description: 'A scripted agent: the user text picks the script.',
  protocolVersion: '0.3.0',
  version: '1.0.0',
  url: 'http://127.0.0.1/', // replaced once the port is known
  preferredTransport: opts.rest ? 'HTTP+JSON' : 'JSONRPC',
  capabilities: { streaming: opts.streaming, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'script', name: 'script', description: 'Plays the scenario named in the message text.', tags: ['test'] }],
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor(opts.delay));
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
const handlerOpts = { requestHandler: handler, userBuilder: UserBuilder.noAuthentication };
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
  announce(server);
});
