#!/usr/bin/env node
// What @anthropic-ai/sdk's own tool runner sends back, for checking the adapter against it.
//
// Reads one tool input per line on stdin (JSON). For each, `client.beta.messages.toolRunner` runs
// one turn against a mocked `fetch` whose only reply is an assistant message with a `memory`
// tool_use carrying that input; the tool_result the runner builds (`generateToolResponse()`) is
// printed as {"content": ..., "is_error": ...}. Nothing leaves the machine. The same tool serves
// every line, so state carries over as in the adapter.
//
//   node runner-oracle.mjs TARGET --base DIR      (TARGET as for memspec-adapter.mjs)
//
// Used by adapters/selftest.py --crosscheck.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs, loadTarget } from './memspec-adapter.mjs';

const paths = parseArgs(process.argv.slice(2));
const loaded = await loadTarget(paths.target, paths);
if (!loaded.sdk.dir) throw new Error('the oracle needs @anthropic-ai/sdk in reach (run .ci/install-sdks)');
// The runner that belongs to the SDK copy the adapter picked, so ToolError identity agrees.
const { default: Anthropic } = await import(pathToFileURL(path.join(loaded.sdk.dir, 'index.mjs')).href);
const tool = loaded.tool ?? (await loaded.build());

const pending = [];
const mockFetch = async () =>
  new Response(JSON.stringify(pending.shift()), { status: 200, headers: { 'content-type': 'application/json' } });
const client = new Anthropic({ apiKey: 'sk-oracle-not-used', fetch: mockFetch, maxRetries: 0 });

let n = 0;
for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  n += 1;
  pending.push({
    id: `msg_oracle_${n}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-oracle',
    content: [{ type: 'tool_use', id: `toolu_oracle_${n}`, name: 'memory', input: JSON.parse(line) }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  });
  const runner = client.beta.messages.toolRunner({
    model: 'claude-oracle',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'go' }],
    tools: [tool],
  });
  let response;
  for await (const _message of runner) {
    response = await runner.generateToolResponse();
    break;
  }
  const [block] = response.content;
  const out = { content: block.content ?? null, is_error: block.is_error === true };
  fs.writeSync(1, JSON.stringify(out) + '\n');
}
process.exit(0);
