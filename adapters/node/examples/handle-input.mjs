// Shape `input`: a plain function `handle(input) -> string`, over a folder.
//
//   memspec check --strict --node adapters/node/examples/handle-input.mjs:handle
//   memspec check --strict --backend 'node adapters/node/memspec-adapter.mjs adapters/node/examples/handle-input.mjs:handle --base {base}'
//
// The adapter finds the shape from the first parameter's name, `input`. It runs `handle` as the
// `run` of a runnable tool, as the SDK's tool runner would: the string returned is the result;
// an error is thrown as a ToolError, whose content the runner sends as it is with is_error true
// (any other Error would reach Claude as `Error: ${message}`).
//
// The folder is MEMSPEC_MEMORIES (set by memspec and by the adapter), else ./memories;
// `makeHandle` is the factory form, which the adapter calls with { base, memories } instead.
//
// Planted bug: MEMSPEC_EXAMPLE_BUG=create-appends-newline (create writes file_text + "\n").
import { CommandError, FolderMemory } from './folder-memory.mjs';
import { ToolError } from './tool-error.mjs';

const memory = new FolderMemory(process.env.MEMSPEC_MEMORIES || 'memories');

function run(store, input) {
  try {
    return store.run(input);
  } catch (e) {
    if (e instanceof CommandError) throw new ToolError(e.text);
    throw e;
  }
}

export function handle(input) {
  return run(memory, input);
}

export function makeHandle({ memories }) {
  const store = new FolderMemory(memories);
  return (input) => run(store, input);
}
