// The scripted model provider of crates/tessera-testkit (`tessera-scripted-provider`) driven
// from Node: it speaks the real OpenAI chat-completions SSE wire; replies are queued with
// `POST /_script` and requests are listed by `GET /_requests`.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const MODEL = 'scripted-model';

/** The binary: TESSERA_SCRIPTED_PROVIDER_BIN, else beside TESSERA_BIN (same cargo target dir). */
export function scriptedProviderBinary() {
  const explicit = process.env.TESSERA_SCRIPTED_PROVIDER_BIN;
  const beside = process.env.TESSERA_BIN ? path.join(path.dirname(process.env.TESSERA_BIN), 'tessera-scripted-provider') : '';
  const bin = explicit || beside;
  if (!bin || !existsSync(bin)) {
    throw new Error(
      `the scripted provider binary is missing (${bin || 'TESSERA_BIN not set'}): build it with\n` +
        '  cargo build -p tessera-testkit --bin tessera-scripted-provider\n' +
        'or name it with TESSERA_SCRIPTED_PROVIDER_BIN',
    );
  }
  return path.resolve(bin);
}

/**
 * Starts the provider (listing `models` at `/v1/models`); resolves with `{ child, url }` once
 * it prints `Listening on URL`.
 */
export function startScriptedProvider(onSpawn, models = []) {
  const args = models.flatMap((m) => ['--model', m]);
  const child = spawn(scriptedProviderBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  onSpawn(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`scripted provider did not start\n${stdout}\n${stderr}`)), 15_000);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /^Listening on (http:\/\/\S+)\s*$/m.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`scripted provider exited (${code})\n${stderr}`));
    });
  });
}

function chunk(delta, finish = null) {
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: 0,
    model: MODEL,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  };
}

function usage(prompt, completion) {
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: 0,
    model: MODEL,
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

function sse(chunks, delayMs = 0) {
  const steps = [];
  for (const c of chunks) {
    if (c.pause_ms !== undefined) {
      steps.push({ delay_ms: c.pause_ms });
      continue;
    }
    if (delayMs > 0) steps.push({ delay_ms: delayMs });
    steps.push({ raw: `data: ${JSON.stringify(c)}\n\n` });
  }
  steps.push({ raw: 'data: [DONE]\n\n' });
  return { status: 200, headers: [], body: { sse: steps }, delay_ms: 0 };
}

/**
 * A streamed text answer, one delta per piece, `delayMs` before each chunk; a piece
 * `{ pause_ms }` is a pause in the stream instead.
 */
export function textReply(pieces, delayMs = 0) {
  return sse(
    [
      chunk({ role: 'assistant', content: '' }),
      ...pieces.map((p) => (typeof p === 'string' ? chunk({ content: p }) : p)),
      chunk({}, 'stop'),
      usage(12, pieces.length),
    ],
    delayMs,
  );
}

/** One tool call (`id`, `name`, its JSON arguments as one string). */
export function toolCallReply(id, name, args) {
  return sse([
    chunk({ role: 'assistant', content: null }),
    chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: typeof args === 'string' ? args : JSON.stringify(args) } }] }),
    chunk({}, 'tool_calls'),
    usage(40, 20),
  ]);
}

/** An HTTP error from the provider (a refused request: not retried by itself). */
export function errorReply(status, message) {
  return { status, headers: [], body: { json: { error: { message, type: 'invalid_request_error' } } }, delay_ms: 0 };
}

/** Queues replies; requests take them in order. */
export async function pushReplies(providerUrl, replies) {
  const response = await fetch(`${providerUrl}/_script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(replies),
  });
  if (!response.ok) throw new Error(`POST /_script: ${response.status} ${await response.text()}`);
}

/** The model calls the provider received (POST …/chat/completions). */
export async function modelCalls(providerUrl) {
  const response = await fetch(`${providerUrl}/_requests`);
  const requests = await response.json();
  return requests.filter((r) => r.method === 'POST' && String(r.path ?? r.uri ?? '').includes('chat/completions'));
}

export { MODEL };
