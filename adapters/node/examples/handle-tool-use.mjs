// Shape `tool_use`: `handle(toolUse) -> tool_result`, over a folder.
//
//   memspec check --strict --node adapters/node/examples/handle-tool-use.mjs:handle
//   memspec check --strict --backend 'node adapters/node/memspec-adapter.mjs adapters/node/examples/handle-tool-use.mjs:handle --base {base}'
//
// The adapter finds the shape from the first parameter's name, `toolUse` (or `block`, or a
// destructured `{ id, input }`; `--shape tool_use` / MEMSPEC_SHAPE=tool_use force it). It passes
// the whole block, { type: 'tool_use', id, name: 'memory', input }, and sends the content and
// is_error of the tool_result returned, whose tool_use_id must be the block's id.
//
// Planted bug: MEMSPEC_EXAMPLE_BUG=replace-expands-dollar (str_replace through String.prototype.replace,
// which expands `$&` and `$$` in new_str).
import { CommandError, FolderMemory } from './folder-memory.mjs';

const memory = new FolderMemory(process.env.MEMSPEC_MEMORIES || 'memories');

export function handle(toolUse) {
  let content;
  let isError = false;
  try {
    content = memory.run(toolUse.input);
  } catch (e) {
    if (!(e instanceof CommandError)) throw e;
    [content, isError] = [e.text, true];
  }
  return { type: 'tool_result', tool_use_id: toolUse.id, content, is_error: isError };
}
