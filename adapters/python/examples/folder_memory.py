"""A memory store on a folder, for Claude's memory tool (`memory_20250818`): the shared core of the
handler-function examples (handle_input.py, handle_async.py, handle_tool_use.py).

`FolderMemory(folder).run(tool_input)` returns the result text of one command or raises
`CommandError(text)`; each example turns that into the shape it shows. The strings are the memory
tool page's own (`Error: ` prefixes exactly as the page writes them); where the page is silent the
wording is this file's. Standard library only.

Safety, which the page makes a MUST: every path must be `/memories` or below it, with no `.`/`..`
segment, backslash, control character or percent-encoded traversal; a symbolic link is never
followed (a path through one is refused; delete and rename act on the link itself); FIFOs and
other special files are never opened; edits go through a temporary file renamed into place, so a
hard link planted from outside is never written through; create and rename never replace
anything; `/memories` itself can be neither deleted nor renamed.

Planted bugs, for trying memspec: set MEMSPEC_EXAMPLE_BUG to one of BUGS (see below). Each is a
mistake real backends make; memspec names the rule each one breaks.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import tempfile
import unicodedata
from typing import Any, Optional
from urllib.parse import unquote

ROOT = "/memories"
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
MAX_LINES = 999_999

# MEMSPEC_EXAMPLE_BUG=<name> plants one bug (the examples' tests; see the READMEs):
BUGS = {
    "replace-all": "str_replace replaces every occurrence of old_str instead of refusing",
    "view-range-off-by-one": "view_range is read as 0-indexed: [2, 3] shows lines 3 and 4",
    "delete-root": "delete of /memories itself is allowed (it empties the store)",
}


class CommandError(Exception):
    """A command that failed: `text` is what Claude should read, with is_error true."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _bug(name: str) -> bool:
    return os.environ.get("MEMSPEC_EXAMPLE_BUG") == name


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a non-integer number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _size(n: int) -> str:
    """Human-readable, powers of 1024: 512B, 1.5K, 4.0K, 1.2M."""
    if n < 1024:
        return f"{n}B"
    value = float(n)
    for unit in "KMGTPE":
        value /= 1024
        if round(value, 1) < 1024 or unit == "E":
            return f"{value:.1f}{unit}"
    raise AssertionError("unreachable")


def _lines(text: str) -> list[str]:
    """A final newline ends the last line; it does not start an empty one."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _utf8(text: str) -> bytes:
    """UTF-8 bytes; a lone surrogate (JSON allows `\\ud800`) becomes U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{first + i:>6}\t{line}" for i, line in enumerate(lines))


class FolderMemory:
    """The memory tool's six commands over a folder that stands for /memories."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.abspath(folder)
        os.makedirs(self.folder, mode=0o700, exist_ok=True)

    # -- input ---------------------------------------------------------------------------------

    def run(self, tool_input: Any) -> str:
        if not isinstance(tool_input, dict):
            raise CommandError(f"Error: The tool input must be a JSON object, got {_type_name(tool_input)}.")
        command = tool_input.get("command")
        if "command" not in tool_input:
            raise CommandError("Error: Missing required parameter `command`.")
        if not isinstance(command, str):
            raise CommandError(f"Error: Parameter `command` must be a string, got {_type_name(command)}.")
        if command not in COMMANDS:
            raise CommandError(f"Error: Unknown command `{command}`. Valid commands are: {', '.join(COMMANDS)}.")
        if command == "view":
            return self.view(tool_input)
        # One writer at a time, across processes too: str_replace and insert read the file, edit
        # it and write it back, and two agents doing that at once would each undo the other's
        # edit. The lock is on the folder itself (released when the descriptor is closed).
        lock = os.open(self.folder, os.O_RDONLY)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return getattr(self, command)(tool_input)
        finally:
            os.close(lock)

    @staticmethod
    def _field(tool_input: dict, name: str, kind: type, optional: bool = False) -> Any:
        command = tool_input["command"]
        if name not in tool_input or (optional and tool_input[name] is None):
            if optional:
                return None
            raise CommandError(f"Error: Missing required parameter `{name}` for command `{command}`.")
        value = tool_input[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            want = "an integer" if kind is int else "a string"
            raise CommandError(f"Error: Parameter `{name}` must be {want}, got {_type_name(value)}.")
        return value

    # -- paths ---------------------------------------------------------------------------------

    def _segments(self, path: str) -> list[str]:
        """The names below /memories, after checking the path's grammar."""

        def invalid(why: str) -> CommandError:
            return CommandError(f"Error: The path {_printable(path)} is not a valid memory path: {why}.")

        if any(_is_control(c) for c in path):
            raise invalid("control characters such as NUL are not allowed")
        if "\\" in path:
            raise invalid("backslashes are not allowed")
        if path != ROOT and not path.startswith(ROOT + "/"):
            raise invalid("memory paths must be /memories or start with /memories/")
        if len(_utf8(path)) > 4096:
            raise invalid("it is longer than 4096 bytes")
        segments = [s for s in path[len(ROOT):].split("/") if s]
        for segment in segments:
            if segment in (".", ".."):
                raise invalid("`.` and `..` segments are not allowed")
            decoded = segment
            for _ in range(3):  # %2e%2e, %252e%252e, ...
                decoded = unquote(decoded)
                if _traverses(decoded):
                    raise invalid("percent-encoded dots, slashes, backslashes and NUL are not allowed")
            if _traverses(_fold(segment)):  # fullwidth dots, division slash, ...
                raise invalid("characters that look like dots, slashes or backslashes are not allowed")
            if len(_utf8(segment)) > 255:
                raise invalid("a path segment is longer than 255 bytes")
        return segments

    def _host(self, segments: list[str]) -> str:
        return os.path.join(self.folder, *segments)

    def _walk(self, path: str, segments: list[str]) -> Optional[os.stat_result]:
        """lstat of the path's last component, or None when it is missing. Every component before
        it must be a real folder: a symbolic link on the way is refused, never followed."""
        current = self.folder
        for i, segment in enumerate(segments):
            current = os.path.join(current, segment)
            try:
                st = os.lstat(current)
            except FileNotFoundError:
                return None
            except NotADirectoryError:
                return None
            except OSError as exc:
                raise CommandError(f"Error: Cannot look up {path}: {exc.strerror}")
            if i == len(segments) - 1:
                return st
            if stat.S_ISLNK(st.st_mode):
                link = ROOT + "/" + "/".join(segments[: i + 1])
                raise CommandError(
                    f"Error: The path {path} goes through the symbolic link {link}; "
                    "the memory tool does not follow symbolic links."
                )
            if not stat.S_ISDIR(st.st_mode):
                return None
        return os.lstat(self.folder)

    @staticmethod
    def _through_link(path: str, segments: list[str]) -> CommandError:
        """For a path whose last component is a symbolic link (never followed)."""
        return CommandError(
            f"Error: The path {path} goes through the symbolic link {ROOT}/{'/'.join(segments)}; "
            "the memory tool does not follow symbolic links."
        )

    def _read_text(self, path: str, segments: list[str], missing: str) -> tuple[str, os.stat_result]:
        """The text of a regular file; `missing` is the error for a path that is not a file."""
        st = self._walk(path, segments)
        if st is None or stat.S_ISDIR(st.st_mode) or path.endswith("/"):
            raise CommandError(missing)
        if stat.S_ISLNK(st.st_mode):
            raise self._through_link(path, segments)
        if not stat.S_ISREG(st.st_mode):
            raise CommandError(f"Error: The path {path} is not a regular file or folder.")
        if st.st_nlink > 1:  # another name of this file may lie outside /memories
            raise CommandError(
                f"Error: The file {path} has other hard links, which may lie outside /memories; "
                "the memory tool does not read or edit it."
            )
        try:
            fd = os.open(self._host(segments), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise CommandError(f"Error: Cannot read {path}: {exc.strerror}")
        try:
            return data.decode("utf-8"), st
        except UnicodeDecodeError:
            raise CommandError(
                f"Error: The file {path} is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files."
            )

    def _replace_file(self, segments: list[str], text: str) -> None:
        """Write through a temporary file renamed into place: never through a hard link."""
        host = self._host(segments)
        fd, tmp = tempfile.mkstemp(prefix=".memory-tmp-", dir=os.path.dirname(host))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_utf8(text))
            os.replace(tmp, host)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    # -- commands ------------------------------------------------------------------------------

    def view(self, tool_input: dict) -> str:
        path = self._field(tool_input, "path", str)
        view_range = tool_input.get("view_range")
        segments = self._segments(path)
        st = self._walk(path, segments)
        if st is not None and stat.S_ISDIR(st.st_mode):
            if view_range is not None:
                raise CommandError("Error: The `view_range` parameter is not allowed when `path` points to a directory.")
            return self._listing(path, segments)
        text, _ = self._read_text(path, segments, f"The path {path} does not exist. Please provide a valid path.")
        lines = _lines(text)
        if len(lines) > MAX_LINES:
            raise CommandError(f"File {path} exceeds maximum line limit of 999,999 lines.")
        first = 1
        if view_range is not None:
            if (
                not isinstance(view_range, list)
                or len(view_range) != 2
                or not all(isinstance(n, int) and not isinstance(n, bool) for n in view_range)
            ):
                raise CommandError("Error: Invalid `view_range`. It should be a list of two integers.")
            start, end = view_range
            if _bug("view-range-off-by-one"):
                start, end = start + 1, end + 1 if end != -1 else -1
            n = len(lines)
            if not 1 <= start <= n:
                raise CommandError(
                    f"Error: Invalid `view_range`: [{start}, {end}]. Its first element `{start}` should be "
                    f"within the range of lines of the file: [1, {n}]"
                )
            if end > n:
                raise CommandError(
                    f"Error: Invalid `view_range`: [{start}, {end}]. Its second element `{end}` should be "
                    f"smaller than the number of lines in the file: `{n}`"
                )
            if end != -1 and end < start:
                raise CommandError(
                    f"Error: Invalid `view_range`: [{start}, {end}]. Its second element `{end}` should be "
                    f"larger or equal than its first `{start}`"
                )
            first = start
            lines = lines[start - 1 :] if end == -1 else lines[start - 1 : end]
        header = f"Here's the content of {path} with line numbers:"
        return header + ("\n" + _numbered(lines, first) if lines else "")

    def _listing(self, path: str, segments: list[str]) -> str:
        canonical = ROOT + "".join("/" + s for s in segments)
        rows: list[str] = []

        def visible(name: str) -> bool:
            if name.startswith(".") or name == "node_modules":
                return False
            try:
                name.encode("utf-8")  # a name that is not UTF-8 cannot be spelled by Claude
            except UnicodeEncodeError:
                return False
            return True

        def total(host: str) -> int:
            size = 0
            try:
                with os.scandir(host) as it:
                    for entry in it:
                        if not visible(entry.name) or entry.is_symlink():
                            continue
                        if entry.is_dir(follow_symlinks=False):
                            size += total(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            size += entry.stat(follow_symlinks=False).st_size
            except OSError:
                pass
            return size

        def walk(host: str, shown: str, depth: int) -> None:
            try:
                with os.scandir(host) as it:
                    entries = sorted((e for e in it if visible(e.name)), key=lambda e: e.name.encode("utf-8"))
            except OSError:
                return
            for entry in entries:
                child = f"{shown}/{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    rows.append(f"{_size(total(entry.path))}\t{child}/")
                    if depth < 2:
                        walk(entry.path, child, depth + 1)
                elif entry.is_file(follow_symlinks=False):  # no links, FIFOs, sockets or devices
                    rows.append(f"{_size(entry.stat(follow_symlinks=False).st_size)}\t{child}")

        host = self._host(segments)
        rows.append(f"{_size(total(host))}\t{canonical}")
        walk(host, canonical, 1)
        header = f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items and node_modules:"
        return header + "\n" + "\n".join(rows)

    def create(self, tool_input: dict) -> str:
        path = self._field(tool_input, "path", str)
        file_text = self._field(tool_input, "file_text", str)
        segments = self._segments(path)
        if not segments:
            raise CommandError(f"Error: File {path} already exists")
        if path.endswith("/"):
            raise CommandError(f"Error: The path {path} ends with a slash; create makes files, not folders.")
        self._make_parents(path, segments[:-1], f"Error: Cannot create {path}")
        host = self._host(segments)
        try:
            # O_EXCL | O_NOFOLLOW: never replaces anything, never writes through a planted link.
            fd = os.open(host, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            raise CommandError(f"Error: File {path} already exists")
        except OSError as exc:
            raise CommandError(f"Error: Cannot create {path}: {exc.strerror}")
        with os.fdopen(fd, "wb") as f:
            f.write(_utf8(file_text))
        return f"File created successfully at: {path}"

    def _make_parents(self, path: str, parents: list[str], what: str) -> None:
        current = self.folder
        for i, segment in enumerate(parents):
            current = os.path.join(current, segment)
            shown = ROOT + "/" + "/".join(parents[: i + 1])
            try:
                st = os.lstat(current)
            except FileNotFoundError:
                try:
                    os.mkdir(current, 0o700)
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise CommandError(f"{what}: {exc.strerror}")
                continue
            if stat.S_ISLNK(st.st_mode):
                raise CommandError(
                    f"Error: The path {path} goes through the symbolic link {shown}; "
                    "the memory tool does not follow symbolic links."
                )
            if not stat.S_ISDIR(st.st_mode):
                raise CommandError(f"{what}: {shown} is not a folder.")

    def str_replace(self, tool_input: dict) -> str:
        path = self._field(tool_input, "path", str)
        old_str = self._field(tool_input, "old_str", str)
        new_str = self._field(tool_input, "new_str", str, optional=True) or ""
        segments = self._segments(path)
        text, _ = self._read_text(path, segments, f"Error: The path {path} does not exist. Please provide a valid path.")
        if old_str == "":
            raise CommandError(f"Error: No replacement was performed on {path}: `old_str` must not be empty.")
        starts = []
        at = text.find(old_str)
        while at != -1:
            starts.append(at)
            at = text.find(old_str, at + 1)
        if not starts:
            raise CommandError(f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.")
        if len(starts) > 1 and not _bug("replace-all"):
            numbers = sorted({text.count("\n", 0, s) + 1 for s in starts})
            raise CommandError(
                f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: "
                f"{', '.join(map(str, numbers))}. Please ensure it is unique"
            )
        if _bug("replace-all"):
            new_text = text.replace(old_str, new_str)
        else:
            new_text = text[: starts[0]] + new_str + text[starts[0] + len(old_str) :]
        self._replace_file(segments, new_text)
        # A snippet of the edited file: 4 lines before the change to 4 lines after it.
        first = text.count("\n", 0, starts[0])
        last = first + new_str.count("\n")
        lines = _lines(new_text)
        lo, hi = max(0, first - 4), min(len(lines), last + 5)
        snippet = _numbered(lines[lo:hi], lo + 1)
        return "The memory file has been edited." + ("\n" + snippet if snippet else "")

    def insert(self, tool_input: dict) -> str:
        path = self._field(tool_input, "path", str)
        insert_line = self._field(tool_input, "insert_line", int)
        insert_text = self._field(tool_input, "insert_text", str)
        segments = self._segments(path)
        text, _ = self._read_text(path, segments, f"Error: The path {path} does not exist")
        lines = _lines(text)
        if not 0 <= insert_line <= len(lines):
            raise CommandError(
                f"Error: Invalid `insert_line` parameter: {insert_line}. It should be within the range of "
                f"lines of the file: [0, {len(lines)}]"
            )
        if insert_text:
            before = "".join(line + "\n" for line in lines[:insert_line])
            after = text[len(before) :]
            if before == text and text and not text.endswith("\n"):
                before, after = text + "\n", ""  # appended after a last line without a newline
            if after and not insert_text.endswith("\n"):
                insert_text += "\n"
            self._replace_file(segments, before + insert_text + after)
        return f"The file {path} has been edited."

    def delete(self, tool_input: dict) -> str:
        path = self._field(tool_input, "path", str)
        segments = self._segments(path)
        if not segments and not _bug("delete-root"):
            raise CommandError("Error: Cannot delete the /memories directory itself")
        st = self._walk(path, segments)
        if st is not None and path.endswith("/") and stat.S_ISLNK(st.st_mode):
            raise self._through_link(path, segments)
        if st is None or (path.endswith("/") and not stat.S_ISDIR(st.st_mode)):
            raise CommandError(f"Error: The path {path} does not exist")
        host = self._host(segments)
        try:
            if not segments:  # the planted bug: everything inside goes
                for entry in os.scandir(host):
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path)
                    else:
                        os.unlink(entry.path)
            elif stat.S_ISDIR(st.st_mode):
                shutil.rmtree(host)  # removes links inside, never follows them
            else:
                os.unlink(host)  # a link is removed itself, its target untouched
        except OSError as exc:
            raise CommandError(f"Error: Cannot delete {path}: {exc.strerror}")
        return f"Successfully deleted {path}"

    def rename(self, tool_input: dict) -> str:
        old_path = self._field(tool_input, "old_path", str)
        new_path = self._field(tool_input, "new_path", str)
        old, new = self._segments(old_path), self._segments(new_path)
        if not old:
            raise CommandError("Error: Cannot rename the /memories directory itself")
        st = self._walk(old_path, old)
        if st is not None and old_path.endswith("/") and stat.S_ISLNK(st.st_mode):
            raise self._through_link(old_path, old)
        if st is None or (old_path.endswith("/") and not stat.S_ISDIR(st.st_mode)):
            raise CommandError(f"Error: The path {old_path} does not exist")
        if self._walk(new_path, new) is not None:
            raise CommandError(f"Error: The destination {new_path} already exists")
        if new[: len(old)] == old:
            raise CommandError(f"Error: Cannot move {old_path} into itself ({new_path}).")
        if new_path.endswith("/") and not stat.S_ISDIR(st.st_mode):
            raise CommandError(
                f"Error: Cannot rename {old_path} to {new_path}: the destination ends with a slash, which names a "
                f"folder, and {old_path} is a file."
            )
        self._make_parents(new_path, new[:-1], f"Error: Cannot rename to {new_path}")
        source, target = self._host(old), self._host(new)
        try:
            if os.path.lexists(target):  # appeared meanwhile: never overwrite
                raise CommandError(f"Error: The destination {new_path} already exists")
            os.rename(source, target)
        except OSError as exc:
            raise CommandError(f"Error: Cannot rename {old_path}: {exc.strerror}")
        return f"Successfully renamed {old_path} to {new_path}"


def _traverses(segment: str) -> bool:
    return segment in (".", "..") or any(c in segment for c in "/\\\0")


_SLASHES = str.maketrans({"\u2215": "/", "\u2044": "/", "\u29f8": "/", "\u2216": "\\", "\u29f9": "\\"})


def _fold(segment: str) -> str:
    """What a segment looks like: compatibility forms folded (`．` is `.`), slash look-alikes too."""
    return unicodedata.normalize("NFKC", segment).translate(_SLASHES)


def _is_control(c: str) -> bool:
    return ord(c) < 32 or 127 <= ord(c) < 160


def _printable(path: str) -> str:
    """A path with a control character, escaped so that the message stays printable."""
    if not any(_is_control(c) for c in path):
        return path
    simple = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", "'": "\\'", '"': '\\"'}
    return "".join(simple.get(c) or (c if 32 <= ord(c) < 127 else f"\\u{{{ord(c):x}}}") for c in path)
