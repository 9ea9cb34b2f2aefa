// Shape `input`, async: `async function handle(input)`, over a folder.
//
//   memspec check --strict --node adapters/node/examples/handle-async.mjs:handle
//   memspec check --strict --backend 'node adapters/node/memspec-adapter.mjs adapters/node/examples/handle-async.mjs:handle --base {base}'
//
// The adapter awaits what it returns. It shows the two other returns of the input shape: an
// array of content blocks on success, and a tool_result-like object `{ content, is_error: true }`
// for an error, which is sent as it says (nothing thrown).
//
// Planted bug: MEMSPEC_EXAMPLE_BUG=rename-overwrites (rename replaces an existing file).
import { CommandError, FolderMemory } from './folder-memory.mjs';

const memory = new FolderMemory(process.env.MEMSPEC_MEMORIES || 'memories');

export async function handle(input) {
  let text;
  try {
    text = await Promise.resolve().then(() => memory.run(input));
  } catch (e) {
    if (e instanceof CommandError) return { content: e.text, is_error: true };
    throw e;
  }
  return [{ type: 'text', text }];
}
