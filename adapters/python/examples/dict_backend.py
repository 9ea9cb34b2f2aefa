"""An in-memory memory-tool backend: the kind of thing a user writes before moving to a database.

Files live in a dict keyed by their virtual path (``/memories/notes/todo.md``); directories are
implied by the files under them. It subclasses the SDK's ``BetaAbstractMemoryTool``, raises
``ToolError`` for every error the model should read, and follows the spec's strings (including
the ``Error: `` prefixes the spec puts on some of them, which the Python runner does not add).

Try it with memspec:

    memspec check --not-on-folder --backend 'python3 adapters/python/memspec_adapter.py \
        adapters/python/examples/dict_backend.py:DictMemoryTool --base {base}'

(`--not-on-folder`: the memories live in a dict, not in the folder memspec gives it.)

(use the Python that has ``anthropic`` installed, e.g. ``.ci/.venv/bin/python`` after
``.ci/install-sdks``).
"""

from __future__ import annotations

import posixpath
from typing import Dict, List, Optional

from anthropic.lib.tools import BetaAbstractMemoryTool, BetaFunctionToolResultType, ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818ViewCommand,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
)

ROOT = "/memories"
MAX_LINES = 999_999


def _human_size(n: int) -> str:
    for unit in ("B", "K", "M", "G"):
        if n < 1024 or unit == "G":
            return f"{n}B" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _numbered(lines: List[str], start: int = 1) -> str:
    return "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(lines, start))


def _lines(text: str) -> List[str]:
    # A final newline ends the last line; it does not start an empty one.
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


class DictMemoryTool(BetaAbstractMemoryTool):
    def __init__(self) -> None:
        super().__init__()
        self.files: Dict[str, str] = {}

    # --- paths ---------------------------------------------------------------------------

    def _path(self, path: object) -> str:
        """The canonical virtual path, or ToolError if it is not inside /memories."""
        if not isinstance(path, str) or not path:
            raise ToolError(f"Error: Invalid path {path!r}")
        if "\\" in path or "\x00" in path:
            raise ToolError(f"Error: Invalid path {path}")
        norm = posixpath.normpath(path)
        if norm.startswith("//"):  # normpath keeps a leading '//'
            norm = "/" + norm.lstrip("/")
        if norm != ROOT and not norm.startswith(ROOT + "/"):
            raise ToolError(f"Error: The path {path} is outside /memories")
        return norm

    def _is_dir(self, p: str) -> bool:
        return p == ROOT or any(f.startswith(p + "/") for f in self.files)

    def _exists(self, p: str) -> bool:
        return p in self.files or self._is_dir(p)

    # --- commands ------------------------------------------------------------------------

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> BetaFunctionToolResultType:
        p = self._path(command.path)
        if p in self.files:
            lines = _lines(self.files[p])
            if len(lines) > MAX_LINES:
                raise ToolError(f"File {command.path} exceeds maximum line limit of {MAX_LINES:,} lines.")
            start, end = 1, len(lines)
            rng = getattr(command, "view_range", None)
            if rng:
                if len(rng) != 2 or not all(isinstance(x, int) for x in rng):
                    raise ToolError("Error: view_range must be two integers [start, end]")
                start = max(1, rng[0])
                end = len(lines) if rng[1] == -1 else min(rng[1], len(lines))
            body = _numbered(lines[start - 1 : end], start)
            return f"Here's the content of {command.path} with line numbers:\n{body}"
        if not self._is_dir(p):
            raise ToolError(f"The path {command.path} does not exist. Please provide a valid path.")

        def size(q: str) -> int:
            return len(self.files[q].encode()) if q in self.files else sum(
                len(v.encode()) for k, v in self.files.items() if k.startswith(q + "/")
            )

        entries = set()
        for f in self.files:
            if not f.startswith(p + "/"):
                continue
            parts = f[len(p) + 1 :].split("/")
            for depth in (1, 2):
                if len(parts) >= depth and not any(s.startswith(".") or s == "node_modules" for s in parts[:depth]):
                    entries.add("/".join(parts[:depth]))
        out = [f"{_human_size(size(p))}\t{command.path}"]
        for rel in sorted(entries):
            out.append(f"{_human_size(size(p + '/' + rel))}\t{p}/{rel}")
        header = (
            f"Here're the files and directories up to 2 levels deep in {command.path}, "
            "excluding hidden items and node_modules:"
        )
        return header + "\n" + "\n".join(out)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> BetaFunctionToolResultType:
        p = self._path(command.path)
        if not isinstance(getattr(command, "file_text", None), str):
            raise ToolError("Error: create needs a file_text string")
        if self._exists(p):
            raise ToolError(f"Error: File {command.path} already exists")
        parent = posixpath.dirname(p)
        while parent != ROOT:
            if parent in self.files:
                raise ToolError(f"Error: {parent} is a file")
            parent = posixpath.dirname(parent)
        self.files[p] = command.file_text
        return f"File created successfully at: {command.path}"

    def _file(self, path: object, message: str) -> str:
        p = self._path(path)
        if p not in self.files:
            raise ToolError(message)
        return p

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> BetaFunctionToolResultType:
        p = self._file(command.path, f"Error: The path {command.path} does not exist. Please provide a valid path.")
        old, new = command.old_str, command.new_str
        if not isinstance(old, str) or not isinstance(new, str) or old == "":
            raise ToolError("Error: old_str must be a non-empty string and new_str a string")
        text = self.files[p]
        count = text.count(old)
        if count == 0:
            raise ToolError(f"No replacement was performed, old_str `{old}` did not appear verbatim in {command.path}.")
        if count > 1:
            starts, i = [], text.find(old)
            while i >= 0:
                starts.append(text.count("\n", 0, i) + 1)
                i = text.find(old, i + len(old))
            lines = ", ".join(str(n) for n in starts)
            raise ToolError(
                f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {lines}. "
                "Please ensure it is unique"
            )
        at = text.count("\n", 0, text.find(old)) + 1
        self.files[p] = text.replace(old, new, 1)
        lines = _lines(self.files[p])
        lo = max(1, at - 2)
        snippet = _numbered(lines[lo - 1 : at + 2 + new.count("\n")], lo)
        return f"The memory file has been edited.\n{snippet}"

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> BetaFunctionToolResultType:
        p = self._file(command.path, f"Error: The path {command.path} does not exist")
        lines = _lines(self.files[p]) if self.files[p] else []
        n = command.insert_line
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= len(lines):
            raise ToolError(
                f"Error: Invalid `insert_line` parameter: {n}. It should be within the range of lines of "
                f"the file: [0, {len(lines)}]"
            )
        if not isinstance(command.insert_text, str):
            raise ToolError("Error: insert_text must be a string")
        new_lines = _lines(command.insert_text) if command.insert_text else [""]
        lines[n:n] = new_lines
        self.files[p] = "\n".join(lines) + "\n"
        return f"The file {command.path} has been edited."

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> BetaFunctionToolResultType:
        p = self._path(command.path)
        if p == ROOT:
            raise ToolError("Error: Cannot delete the /memories directory itself")
        if not self._exists(p):
            raise ToolError(f"Error: The path {command.path} does not exist")
        for f in [f for f in self.files if f == p or f.startswith(p + "/")]:
            del self.files[f]
        return f"Successfully deleted {command.path}"

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> BetaFunctionToolResultType:
        old, new = self._path(command.old_path), self._path(command.new_path)
        if old == ROOT:
            raise ToolError("Error: Cannot rename the /memories directory itself")
        if not self._exists(old):
            raise ToolError(f"Error: The path {command.old_path} does not exist")
        if self._exists(new):
            raise ToolError(f"Error: The destination {command.new_path} already exists")
        if new.startswith(old + "/"):
            raise ToolError(f"Error: Cannot move {command.old_path} into itself")
        moved: Dict[str, str] = {}
        for f in list(self.files):
            if f == old or f.startswith(old + "/"):
                moved[new + f[len(old) :]] = self.files.pop(f)
        self.files.update(moved)
        return f"Successfully renamed {command.old_path} to {command.new_path}"

    def clear_all_memory(self) -> BetaFunctionToolResultType:
        # memspec's `reset` control calls this, so one process can serve many cases.
        self.files.clear()
        return "All memory cleared"


def make(memories: Optional[str] = None) -> DictMemoryTool:
    """A factory, to show the other TARGET form: `dict_backend.py:make` (gets `memories` by name)."""
    return DictMemoryTool()
