// A scripted A2A 1.0 agent on @a2a-js/sdk 1.3.0 and express 5, used as a
// real peer by the a2astream interop tests.
//
//   node server.mjs --port 0 --delay 60            A2A 1.0 only (clients send A2A-Version: 1.0)
//   node server.mjs --port 0 --delay 60 --legacy   also A2A 0.3 through the SDK's legacyCompat
//   … [--rest] [--no-streaming] [--no-subscribe]    the modes described in ../jsshared/scenarios.mjs
//   … --grpc-port 0    also A2A 1.0 over gRPC (lf.a2a.v1.A2AService; with --legacy, 0.3's
//                      a2a.v1.A2AService beside it), listed in the card as GRPC interfaces
//   … [--extended-card static|fn|none|unadvertised] [--auth-401] [--token T]
//     [--push] [--push-timeout MS]   the optional features (see ../jsshared/scenarios.mjs)
//
// prints "A2A_PEER_GRPC=127.0.0.1:PORT" (with --grpc-port), then
// "A2A_PEER_URL=http://127.0.0.1:PORT/" once it listens on 127.0.0.1.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Role, TaskState } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  AgentEvent, DefaultPushNotificationSender, DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import {
  announce, bearerUserBuilder, interfaceURL, mountA2A, parseArgs, plan, run, serveGrpc, textOf,
} from '../jsshared/scenarios.mjs';

const opts = parseArgs(process.argv.slice(2));

const STATES = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  'auth-required': TaskState.TASK_STATE_AUTH_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
};

const textPart = (value) => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: {} });

function agentMessage(text, taskId, contextId) {
  return {
    messageId: randomUUID(), taskId, contextId, role: Role.ROLE_AGENT,
    parts: [textPart(text)], metadata: {}, extensions: [], referenceTaskIds: [],
  };
}

class ScriptedExecutor {
  constructor(delay) {
    this.delay = delay;
    this.running = new Map(); // taskId -> {abort, contextId}
  }

  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const user = ctx.userMessage;
    const followUp = Boolean(ctx.task);
    const steps = plan(textOf(user.parts), followUp);
    const abort = new AbortController();
    this.running.set(taskId, { abort, contextId });
    const artifactIds = new Map();
    if (followUp) {
      // SDK 1.x: every execute() must publish a Task (or a Message) first.
      bus.publish(AgentEvent.task(ctx.task));
    }
    const emit = (step) => {
      switch (step.op) {
        case 'task':
          bus.publish(AgentEvent.task({
            id: taskId, contextId,
            status: { state: STATES.submitted, message: undefined, timestamp: new Date().toISOString() },
            artifacts: [], history: [user], metadata: {},
          }));
          break;
        case 'status':
          bus.publish(AgentEvent.statusUpdate({
            taskId, contextId, metadata: {},
            status: {
              state: STATES[step.state],
              message: step.text ? agentMessage(step.text, taskId, contextId) : undefined,
              timestamp: new Date().toISOString(),
            },
          }));
          break;
        case 'chunk': {
          const known = artifactIds.has(step.name);
          if (!known) artifactIds.set(step.name, randomUUID());
          bus.publish(AgentEvent.artifactUpdate({
            taskId, contextId, append: known, lastChunk: step.last, metadata: {},
            artifact: {
              artifactId: artifactIds.get(step.name), name: step.name, description: '',
              parts: [textPart(step.text)], metadata: {}, extensions: [],
            },
          }));
          break;
        }
        case 'message':
          bus.publish(AgentEvent.message({
            messageId: randomUUID(), taskId: '', contextId, role: Role.ROLE_AGENT,
            parts: [textPart(step.text)], metadata: {}, extensions: [], referenceTaskIds: [],
          }));
          break;
      }
    };
    try {
      await run(steps, emit, abort.signal, this.delay);
    } finally {
      this.running.delete(taskId);
    }
  }

  async cancelTask(taskId, bus) {
    const r = this.running.get(taskId);
    r?.abort.abort();
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId: r?.contextId ?? '', metadata: {},
      status: { state: STATES.canceled, message: undefined, timestamp: new Date().toISOString() },
    }));
  }
}

const binding = opts.rest ? 'HTTP+JSON' : 'JSONRPC';
const iface = (version) => ({ url: 'http://127.0.0.1/', protocolBinding: binding, tenant: '', protocolVersion: version });
const modes = [opts.legacy && 'legacyCompat', opts.rest && 'REST', !opts.streaming && 'no streaming', !opts.subscribe && 'no subscribe',
  opts.extendedCard && `extended card ${opts.extendedCard}`, opts.auth401 && 'auth 401', opts.push && 'push'].filter(Boolean);
const card = {
  name: `a2astream interop peer (@a2a-js/sdk 1.3.0${modes.map((m) => `, ${m}`).join('')})`,
  description: 'A scripted agent: the user text picks the script.',
  supportedInterfaces: opts.legacy ? [iface('1.0'), iface('0.3')] : [iface('1.0')],
  version: '1.0.0',
  capabilities: {
    streaming: opts.streaming, pushNotifications: opts.push, extensions: [],
    extendedAgentCard: opts.extendedCard !== undefined && opts.extendedCard !== 'unadvertised',
  },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{
    id: 'script', name: 'script', description: 'Plays the scenario named in the message text.', tags: ['test'],
    examples: [], inputModes: [], outputModes: [], securityRequirements: [],
  }],
  signatures: [],
};

// The extended card: the public card and one skill more, for alice only
// (--token). It shares the public card's interface list, whose URLs are set
// when the server listens.
const extendedSkill = {
  id: 'extended', name: 'extended', description: 'Only for signed-in callers.', tags: ['test', 'extended'],
  examples: [], inputModes: [], outputModes: [], securityRequirements: [],
};
const extendedCard = () => ({
  ...card, skills: [...card.skills, extendedSkill],
});
let extendedProvider;
if (opts.extendedCard === 'static' || opts.extendedCard === 'unadvertised') extendedProvider = extendedCard();
if (opts.extendedCard === 'fn') {
  extendedProvider = async (context) => {
    if (!context?.user?.isAuthenticated) throw new UnsupportedOperationError('The extended card is for signed-in callers.');
    return extendedCard();
  };
}

// Push (--push): the SDK's own store and sender; the handler turns push on
// because the card says pushNotifications: true.
let pushStore, pushSender;
if (opts.push) {
  pushStore = new InMemoryPushNotificationStore();
  const senderOpts = opts.pushTimeout !== undefined ? { timeout: opts.pushTimeout } : {};
  if (opts.legacy) {
    const { createLegacyAwarePushNotificationSender } = await import('@a2a-js/sdk/compat/v0_3/server');
    pushSender = createLegacyAwarePushNotificationSender(pushStore, senderOpts);
  } else {
    pushSender = new DefaultPushNotificationSender(pushStore, senderOpts);
  }
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor(opts.delay), undefined,
  pushStore, pushSender, extendedProvider);
const legacyCompat = { enabled: opts.legacy };
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat }));
const handlerOpts = { requestHandler: handler, userBuilder: bearerUserBuilder(opts.token, UnauthenticatedUser), legacyCompat };
mountA2A(app, express, opts, jsonRpcHandler(handlerOpts), opts.rest ? restHandler(handlerOpts) : undefined);

if (opts.grpcPort !== undefined) {
  // The SDK checks a gRPC call's version against the card's GRPC
  // interfaces: without them every call is refused VERSION_NOT_SUPPORTED.
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService } = await import('@a2a-js/sdk/server/grpc');
  const services = [[A2AService, grpcService(handlerOpts)]];
  if (opts.legacy) {
    const { LegacyA2AService, legacyGrpcService } = await import('@a2a-js/sdk/compat/v0_3/server/grpc');
    services.push([LegacyA2AService, legacyGrpcService(handlerOpts)]);
  }
  const addr = await serveGrpc(grpc, opts.grpcPort, services);
  const grpcIface = (version) => ({ url: addr, protocolBinding: 'GRPC', tenant: '', protocolVersion: version });
  card.supportedInterfaces.push(...(opts.legacy ? [grpcIface('1.0'), grpcIface('0.3')] : [grpcIface('1.0')]));
}

const server = app.listen(opts.port, '127.0.0.1', () => {
  const url = interfaceURL(server, opts);
  for (const i of card.supportedInterfaces) if (i.protocolBinding !== 'GRPC') i.url = url;
  announce(server);
});
