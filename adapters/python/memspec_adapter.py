#!/usr/bin/env python3
"""memspec backend-protocol v1 adapter for Python memory-tool backends.

Drives any Python implementation of Claude's memory tool (``memory_20250818``), most often a
subclass of ``anthropic.lib.tools.BetaAbstractMemoryTool`` / ``BetaAsyncAbstractMemoryTool``,
over memspec's JSON Lines protocol on stdin/stdout:

    harness -> adapter  {"id": 1, "input": {"command": "view", "path": "/memories"}}
    adapter -> harness  {"id": 1, "content": "...", "is_error": false}
    harness -> adapter  {"id": 2, "control": "reset"}      -> {"id": 2, "ok": true}
    harness -> adapter  {"id": 3, "control": "hello"}      -> {"id": 3, "ok": true, "protocol": 1, ...}

Each reply carries exactly the ``content`` and ``is_error`` that the SDK's own tool runner
(``BetaToolRunner._run_tool`` in anthropic 2.12.0) would put in the ``tool_result`` block, so what
memspec grades is what the model would read.

Usage:
    python3 memspec_adapter.py TARGET --base {base}        (or --memories {memories})
                               [--shape auto|input|tool_use]  (or MEMSPEC_SHAPE)

TARGET is ``module:Attr``, ``path/to/file.py:Attr`` (``:Attr`` may be omitted for a file that
defines exactly one memory-tool class), or a built-in shortcut: ``anthropic-local-fs`` /
``anthropic-local-fs-async`` (the SDK's BetaLocalFilesystemMemoryTool / BetaAsync... on <base>).

Attr may be a tool (anything with ``call(input)``), a class or factory building one, or a plain
handler function, sync or async, in one of two shapes:

    input:     handle(tool_input) -> str | [content blocks] | {"content": ..., "is_error": bool}
    tool_use:  handle({"type": "tool_use", "id", "name", "input"}) -> {"type": "tool_result",
               "tool_use_id", "content", "is_error"}

(see handler_shape for how the shape is found), or a factory (taking ``base``/``base_path``/
``memories``/``state``/``state_dir``, and ``user``/``user_id`` with --user) returning such a
function. A handler needs no SDK to answer an error: a returned ``{"content": ..., "is_error":
true}`` is one in its own words; so is an exception of a class named ``ToolError`` with a
``content`` attribute (the SDK's, or a stand-in of your own); any other exception is an error
too, its text ``repr(exc)``, as the SDK's runner makes it.

State and reset. ``state`` (``--state``, env MEMSPEC_STATE, which memspec sets) is the backend's
own folder, outside the sandbox, for its database or store file; memspec makes a new, empty one
for every process it cannot reset. On ``reset`` the adapter empties ``memories`` (unless it
serves one user of a shared store), then: calls the handler's reset hook when there is one (a
callable ``reset`` attribute on the handler function, or a function ``reset`` in its module,
given the paths and user it names); calls a tool's ``clear_all_memory()``; or builds the tool
again (a factory) or loads the handler's module afresh, unless the backend keeps files in
``state``, which no rebuild empties: then it answers no, and memspec starts a new process on a
new state folder for each case.

Standard library only: the target imports ``anthropic`` itself; this file imports it lazily, and
works (with faithful copies of the runner's helpers) when it is absent.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import inspect
import json
import os
import re
import shutil
import stat
import sys
import traceback
from collections.abc import Mapping
from typing import Any, Callable, Optional

PROTOCOL_VERSION = 1
ADAPTER_NAME = "memspec-python-adapter"

BUILTINS = {
    "anthropic-local-fs": ("anthropic.tools", "BetaLocalFilesystemMemoryTool"),
    "anthropic-local-fs-async": ("anthropic.tools", "BetaAsyncLocalFilesystemMemoryTool"),
}

# Keyword arguments a class or factory may ask for, by name.
FACTORY_KWARGS = ("base", "base_path", "memories", "state", "state_dir")
# The keyword arguments that name the user of a store shared by many users (`--user`, or
# MEMSPEC_USER: `memspec check --per-user` starts one process per user).
USER_KWARGS = ("user", "user_id")

# Handler functions: the two shapes, and the first-parameter names that mean a tool_use block.
SHAPES = ("input", "tool_use")
TOOL_USE_PARAMS = ("tool_use", "tool_use_block", "block")


def log(msg: str) -> None:
    """Diagnostics go to stderr; stdout carries protocol lines only."""
    try:
        sys.stderr.write(f"memspec-adapter: {msg}\n")
        sys.stderr.flush()
    except Exception:
        pass


def _format_exc(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()


class StartupError(Exception):
    """The target could not be loaded or built: reported on stderr, exit status 2."""


# ---------------------------------------------------------------------------------------------
# What the SDK's runner does with a tool's outcome.
#
# anthropic 2.12.0, lib/tools/_beta_runner.py, BetaToolRunner._run_tool:
#
#     try:
#         return {"type": "tool_result", "tool_use_id": tool_use.id,
#                 "content": tool_result_content(tool.call(tool_use.input))}
#     except ToolError as exc:
#         return {..., "content": tool_error_content(exc), "is_error": True}
#     except Exception as exc:
#         log.exception(f"Error occurred while calling tool: {tool.name}", exc_info=exc)
#         return {..., "content": tool_error_content(exc), "is_error": True}
#
# (the async runner is the same with `await tool.call(...)`). The two helpers live in
# lib/tools/_tool_dispatch.py; we call them when the installed SDK has them and otherwise use the
# copies below, which follow 2.12.0 line for line.
# ---------------------------------------------------------------------------------------------

FIELD_MAX = 4096  # anthropic lib/tools/_toolsets/_sanitize.py: FIELD_MAX
_LONE_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _well_formed(text: str) -> str:
    # _sanitize.well_formed: an unpaired surrogate cannot be sent, so it becomes U+FFFD.
    return _LONE_SURROGATE_RE.sub("\ufffd", text)


def _fallback_tool_result_content(content: Any) -> Any:
    # _tool_dispatch.tool_result_content: None stays None (the runner sends `content: null`),
    # a string and the text of text blocks are made well formed, nothing is cut or dropped.
    if content is None:
        return None
    if isinstance(content, str):
        return _well_formed(content)
    blocks = list(content)  # a non-iterable result raises TypeError, as in the SDK
    for i, block in enumerate(blocks):
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str) and (fixed := _well_formed(text)) != text:
                blocks[i] = {**block, "text": fixed}
    return blocks


def _is_tool_error(exc: BaseException) -> bool:
    tool_error = _sdk().tool_error_class
    if tool_error is not None:
        return isinstance(exc, tool_error)
    # No SDK importable: a backend's own ToolError stand-in is recognised by name and `.content`.
    return any(c.__name__ == "ToolError" for c in type(exc).__mro__) and hasattr(exc, "content")


def _fallback_tool_error_content(exc: BaseException) -> Any:
    # _tool_dispatch.tool_error_content: a ToolError's own content, made well formed, never cut
    # and never prefixed; anything else is `repr(exc)`, well formed, cut to FIELD_MAX characters
    # (_sanitize.error_text).
    if _is_tool_error(exc):
        return _fallback_tool_result_content(getattr(exc, "content"))
    return _well_formed(repr(exc))[:FIELD_MAX]


class _Sdk:
    """The parts of the installed `anthropic` package the adapter uses, looked up once, lazily."""

    def __init__(self) -> None:
        self.version: Optional[str] = None
        self.tool_error_class: Optional[type] = None
        self.tool_result_content: Callable[[Any], Any] = _fallback_tool_result_content
        self.tool_error_content: Callable[[BaseException], Any] = _fallback_tool_error_content
        self.helpers_from = "adapter copy of anthropic 2.12.0 runner helpers"
        self.sync_base: Optional[type] = None
        self.async_base: Optional[type] = None
        self.local_fs_classes: tuple = ()
        try:
            from importlib.metadata import version

            self.version = version("anthropic")
        except Exception:
            self.version = None
        try:
            from anthropic.lib.tools import ToolError  # type: ignore

            self.tool_error_class = ToolError
        except Exception:
            pass
        try:
            from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool  # type: ignore

            self.sync_base, self.async_base = BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool
        except Exception:
            pass
        try:
            from anthropic.tools import (  # type: ignore
                BetaLocalFilesystemMemoryTool,
                BetaAsyncLocalFilesystemMemoryTool,
            )

            self.local_fs_classes = (BetaLocalFilesystemMemoryTool, BetaAsyncLocalFilesystemMemoryTool)
        except Exception:
            pass
        try:
            # Private module: present in 2.12.0; older releases inlined the same logic in the runner.
            from anthropic.lib.tools._tool_dispatch import (  # type: ignore
                tool_error_content,
                tool_result_content,
            )

            self.tool_result_content = tool_result_content
            self.tool_error_content = tool_error_content
            self.helpers_from = "anthropic.lib.tools._tool_dispatch"
        except Exception:
            pass


_SDK: Optional[_Sdk] = None


def _sdk() -> _Sdk:
    global _SDK
    if _SDK is None:
        _SDK = _Sdk()
    return _SDK


# ---------------------------------------------------------------------------------------------
# Loading the target
# ---------------------------------------------------------------------------------------------


_FILE_MODULES: dict[str, str] = {}  # file path -> the module name it was imported under


def _import_file(path: str) -> Any:
    """Executes the file as a new module (again on every call: a reset may load it afresh)."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise StartupError(f"no such file: {path}")
    # Let the backend import its siblings, as `python3 path/to/file.py` would.
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = _FILE_MODULES.get(path)
    if name is None:
        name = stem if stem.isidentifier() and stem not in sys.modules else f"memspec_target_{abs(hash(path))}"
        _FILE_MODULES[path] = name
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise StartupError(f"cannot import {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses, pickling and typing need the module registered
    spec.loader.exec_module(module)
    return module


def _looks_like_file(spec: str) -> bool:
    return spec.endswith(".py") or os.sep in spec or "/" in spec


def _find_single_tool_class(module: Any) -> tuple[str, Any]:
    """For a TARGET without `:Attr`: the one memory-tool class the module itself defines."""
    sdk = _sdk()
    bases = tuple(b for b in (sdk.sync_base, sdk.async_base) if b is not None)
    found = []
    for name, obj in vars(module).items():
        if (
            inspect.isclass(obj)
            and obj.__module__ == module.__name__
            and bases
            and issubclass(obj, bases)
            and not inspect.isabstract(obj)
        ):
            found.append((name, obj))
    if len(found) != 1:
        names = ", ".join(n for n, _ in found) or "none"
        raise StartupError(
            f"{module.__name__}: name the backend as FILE:Attr (memory-tool classes defined here: {names})"
        )
    return found[0]


def load_target(target: str, fresh: bool = False) -> tuple[Any, str]:
    """Returns (object named by TARGET, its display name). `fresh`: execute its module again."""
    if target in BUILTINS:
        module_name, attr = BUILTINS[target]
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise StartupError(
                f"{target} needs the `anthropic` package ({exc}); run .ci/install-sdks and use "
                ".ci/.venv/bin/python, or `pip install anthropic==2.12.0`"
            ) from exc
        return getattr(module, attr), f"{module_name}:{attr}"

    module_spec, sep, attr = target.rpartition(":")
    if not sep or (len(module_spec) == 1 and module_spec.isalpha()):  # no ':' (or just a drive letter)
        module_spec, attr = target, ""
    if not module_spec:
        raise StartupError(f"bad TARGET {target!r}: expected module:Attr or path/to/file.py:Attr")

    if _looks_like_file(module_spec):
        module = _import_file(module_spec)
    else:
        module = importlib.import_module(module_spec)
        if fresh:
            module = importlib.reload(module)

    if not attr:
        attr, obj = _find_single_tool_class(module)
        return obj, f"{module_spec}:{attr}"
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise StartupError(f"{module_spec} has no attribute {attr!r}") from None
    return obj, f"{module_spec}:{attr}"


def _is_tool_instance(obj: Any) -> bool:
    sdk = _sdk()
    bases = tuple(b for b in (sdk.sync_base, sdk.async_base) if b is not None)
    if bases and isinstance(obj, bases):
        return True
    # Duck typing: any non-class object with a `call(input)` method.
    return not inspect.isclass(obj) and callable(getattr(obj, "call", None))


def _factory_kwargs(fn: Any, paths: dict[str, str], user: Optional[str] = None) -> dict[str, str]:
    """The keyword arguments among base/base_path/memories (and user/user_id, when the adapter
    serves a user) that `fn` (a class or callable) names. Started as a user, a factory that takes
    none is refused: nothing would keep that user's memories apart from another's."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        if user is not None:
            raise StartupError(
                f"started as user {user!r}, but the signature of {getattr(fn, '__qualname__', fn)!s} cannot be "
                f"read to pass it one of {', '.join(USER_KWARGS)}"
            ) from None
        return {}
    kwargs = {}
    for name in FACTORY_KWARGS:
        p = params.get(name)
        if p is not None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            kwargs[name] = paths[name]
    named_user = [
        n for n in USER_KWARGS if n in params and params[n].kind in (params[n].POSITIONAL_OR_KEYWORD, params[n].KEYWORD_ONLY)
    ]
    if user is not None:
        if not named_user:
            raise StartupError(
                f"started as user {user!r} (memspec check --per-user), but {getattr(fn, '__qualname__', fn)!s} takes "
                f"no {' or '.join(USER_KWARGS)} argument: nothing would keep one user's memories from another's"
            )
        kwargs[named_user[0]] = user
    elif named_user and params[named_user[0]].default is params[named_user[0]].empty:
        raise StartupError(
            f"{getattr(fn, '__qualname__', fn)!s} requires a {named_user[0]}; run it with "
            "memspec check --per-user (or give --user / MEMSPEC_USER)"
        )
    missing = [
        n
        for n, p in params.items()
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and n not in kwargs
        and n not in USER_KWARGS
    ]
    if missing:
        raise StartupError(
            f"{getattr(fn, '__qualname__', fn)!s} requires argument(s) {', '.join(missing)}; the adapter can "
            f"pass only {', '.join(FACTORY_KWARGS)} (wrap it in a factory function)"
        )
    return kwargs


# ---------------------------------------------------------------------------------------------
# Handler functions
#
# Besides tools, TARGET may name a plain function (sync or async), or a factory returning one:
#
#   shape "input":    handle(tool_input) returns what a tool's call() returns (a string, a list of
#                     content blocks) or a tool_result-like mapping {"content": ..., "is_error": bool}.
#   shape "tool_use": handle(tool_use_block) returns the tool_result block for it,
#                     {"type": "tool_result", "tool_use_id": <the block's id>, "content", "is_error"}.
#
# Whatever either raises goes through the runner's mapping above (tool_reply), as for tools.
# ---------------------------------------------------------------------------------------------


def _annotation_text(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty or annotation is inspect.Signature.empty:
        return ""
    if isinstance(annotation, str):  # `from __future__ import annotations`
        return annotation
    return getattr(annotation, "__name__", "") or repr(annotation)


def _signature(fn: Any) -> Optional[inspect.Signature]:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def handler_shape(fn: Any, forced: Optional[str]) -> str:
    """The shape of a handler function: `forced` (--shape / MEMSPEC_SHAPE) when given; else
    "tool_use" when its first parameter is named tool_use, tool_use_block or block, or is annotated
    with a type whose name holds `ToolUse` (BetaToolUseBlock, ToolUseBlockParam), or its return
    annotation holds `ToolResult`; else "input"."""
    if forced:
        return forced
    sig = _signature(fn)
    if sig is None:
        return "input"
    positional = [
        p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    first = positional[0] if positional else None
    if first is not None and (first.name in TOOL_USE_PARAMS or "ToolUse" in _annotation_text(first.annotation)):
        return "tool_use"
    if "ToolResult" in _annotation_text(sig.return_annotation):
        return "tool_use"
    return "input"


def callable_role(fn: Any, forced: Optional[str]) -> str:
    """For a callable that is neither a tool nor a class: "factory", or the shape of the handler
    it is. A factory names base/base_path/memories (or user/user_id), or needs no argument (unless a shape is
    forced); any other callable that takes one is a handler."""
    sig = _signature(fn)
    if sig is None:
        return forced or "factory"
    params = list(sig.parameters.values())
    if any(p.name in FACTORY_KWARGS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params):
        return "factory"
    # `user` alone makes a factory only when nothing else is required: `handle(input, user_id=None)`
    # stays a handler.
    others_required = [
        p
        for p in params
        if p.name not in USER_KWARGS
        and p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY)
    ]
    if not others_required and any(p.name in USER_KWARGS for p in params):
        return "factory"
    takes_input = any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params)
    required = [p for p in params if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if not takes_input or (not required and not forced):
        return "factory"
    return handler_shape(fn, forced)


class HandlerOutcome:
    """A handler's result that says itself whether it is an error (a tool_result or a mapping)."""

    __slots__ = ("content", "is_error")

    def __init__(self, content: Any, is_error: bool) -> None:
        self.content = content
        self.is_error = is_error


class BadHandlerResult(Exception):
    """A handler result no tool_result could carry (the API would refuse it): the reply is a
    protocol error, which memspec grades as the backend breaking, not as content."""


class ToolUseBlock(dict):
    """The tool_use block a tool_use handler gets: a dict (`block["input"]`) whose keys are also
    attributes (`block.input`, `block.id`), as on the SDK's BetaToolUseBlock."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _as_mapping(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return obj
    for name in ("model_dump", "to_dict"):  # an SDK model
        fn = getattr(obj, name, None)
        if callable(fn):
            return fn()
    return obj


def _outcome_of(mapping: Mapping, what: str) -> HandlerOutcome:
    is_error = mapping.get("is_error")
    if is_error is not None and not isinstance(is_error, bool):
        raise BadHandlerResult(f"{what} has is_error {is_error!r}; the API wants true, false or no is_error")
    return HandlerOutcome(mapping.get("content"), bool(is_error))


def _input_result(result: Any) -> Any:
    """What an input-shape handler returned: a mapping says content and is_error itself;
    anything else is a tool's result, converted by the runner's tool_result_content."""
    if isinstance(result, Mapping):
        if "content" not in result and "is_error" not in result and result.get("type") != "tool_result":
            raise BadHandlerResult(
                f"the handler returned a mapping with neither `content` nor `is_error` (keys: {', '.join(map(str, result)) or 'none'}); "
                "return a string, a list of content blocks or {'content': ..., 'is_error': ...}"
            )
        return _outcome_of(result, "the mapping the handler returned")
    return result


def _tool_result(result: Any, tool_use_id: str) -> HandlerOutcome:
    """What a tool_use-shape handler returned: must be the tool_result block for that tool_use."""
    result = _as_mapping(result)
    if not isinstance(result, Mapping):
        raise BadHandlerResult(
            f"a tool_use handler must return a tool_result block (a dict), not {type(result).__name__}"
        )
    if result.get("type") != "tool_result":
        raise BadHandlerResult(f"the block the handler returned has type {result.get('type')!r}, not 'tool_result'")
    if result.get("tool_use_id") != tool_use_id:
        raise BadHandlerResult(
            f"the tool_result has tool_use_id {result.get('tool_use_id')!r}, not the tool_use block's id "
            f"{tool_use_id!r}; the API refuses a tool_result that answers no tool_use"
        )
    return _outcome_of(result, "the tool_result")


async def _finish_async(awaitable: Any, finish: Callable[[Any], Any]) -> Any:
    return finish(await awaitable)


class FunctionTool:
    """A handler function served as a tool: call(input) gives what the handler returned (or a
    HandlerOutcome), or an awaitable of it for an async handler."""

    def __init__(self, fn: Any, shape: str) -> None:
        self.fn = fn
        self.shape = shape
        self.uses = 0
        dunder_call = getattr(type(fn), "__call__", None)
        self.is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(dunder_call)

    @property
    def display(self) -> str:
        fn = self.fn
        name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        return f"{getattr(fn, '__module__', None) or type(fn).__module__}:{name}"

    def call(self, tool_input: Any) -> Any:
        if self.shape == "tool_use":
            self.uses += 1
            tool_use_id = f"toolu_memspec_{self.uses}"
            block = ToolUseBlock(type="tool_use", id=tool_use_id, name="memory", input=tool_input)
            result = self.fn(block)
            finish: Callable[[Any], Any] = lambda r: _tool_result(r, tool_use_id)
        else:
            result = self.fn(tool_input)
            finish = _input_result
        if inspect.isawaitable(result):
            return _finish_async(result, finish)
        return finish(result)


class Backend:
    """The tool, how to (re)build it, and how to call it."""

    def __init__(
        self,
        target: str,
        base: str,
        memories: str,
        shape: Optional[str] = None,
        user: Optional[str] = None,
        state: Optional[str] = None,
    ) -> None:
        self.target = target
        self.base = base
        self.memories = memories
        self.state = state  # the backend's own folder ({state}, MEMSPEC_STATE), or None outside memspec
        self.user = user  # the user served, in a store shared by many users
        self.shape = shape  # forced handler shape (--shape / MEMSPEC_SHAPE), or None to detect it
        self.loop = asyncio.new_event_loop()  # one persistent loop for every async call
        obj, self.display = load_target(target)
        self.factory: Optional[Any] = None
        self.tool = self._adopt(obj)
        if not callable(getattr(self.tool, "call", None)):
            raise StartupError(f"{self.display} produced {type(self.tool).__name__}, which has no call(input)")
        self.is_async = self._is_async()

    def _adopt(self, obj: Any) -> Any:
        """The tool to serve for what TARGET names: a tool as it is, a handler function wrapped,
        a class or factory built (and remembered, to build again on reset)."""
        ready_made = f"started as user {self.user!r} (memspec check --per-user), but {self.display} is a ready-made "
        if _is_tool_instance(obj):
            if self.user is not None:
                raise StartupError(ready_made + "tool: export a class or factory that takes a `user` argument")
            return obj
        if callable(obj) and not inspect.isclass(obj):
            role = callable_role(obj, self.shape)
            if role != "factory":
                if self.user is not None:
                    raise StartupError(ready_made + "handler: export a factory that takes a `user` argument")
                return FunctionTool(obj, role)
        if callable(obj):
            self.factory = obj
            return self._build()
        raise StartupError(f"{self.display} is neither a memory tool, a handler function, a class nor a factory")

    def _is_async(self) -> bool:
        if isinstance(self.tool, FunctionTool):
            return self.tool.is_async
        sdk = _sdk()
        return bool(
            (sdk.async_base is not None and isinstance(self.tool, sdk.async_base))
            or inspect.iscoroutinefunction(getattr(self.tool, "call"))
        )

    def _build(self) -> Any:
        tool = self.factory(**_factory_kwargs(self.factory, self._paths(), self.user))
        if inspect.isawaitable(tool):  # async factory
            tool = self.loop.run_until_complete(_await(tool))
        if not _is_tool_instance(tool) and callable(tool) and not inspect.isclass(tool):
            tool = FunctionTool(tool, handler_shape(tool, self.shape))  # a factory of a handler function
        return tool

    def _paths(self) -> dict[str, str]:
        state = self.state or ""
        return {"base": self.base, "base_path": self.base, "memories": self.memories, "state": state, "state_dir": state}

    def _reset_hook(self) -> Optional[Callable[..., Any]]:
        """A handler function's own reset: a callable `reset` attribute on the function (or on
        what a factory built), else a function named `reset` in the handler's (or factory's)
        module. Tools have clear_all_memory() instead."""
        if not isinstance(self.tool, FunctionTool):
            return None
        hook = getattr(self.tool.fn, "reset", None)
        if callable(hook):
            return hook
        module = inspect.getmodule(self.factory if self.factory is not None else self.tool.fn)
        hook = getattr(module, "reset", None) if module is not None else None
        return hook if callable(hook) and not inspect.isclass(hook) else None

    def _keeps_state(self) -> bool:
        """Whether the backend has put anything in its state folder: a store there outlives a
        rebuilt handler or a reloaded module, so only a reset hook (or a new process) empties it."""
        if not self.state:
            return False
        try:
            with os.scandir(self.state) as it:
                return any(True for _ in it)
        except OSError:
            return False

    def _call_hook(self, hook: Callable[..., Any]) -> None:
        try:
            params = inspect.signature(hook).parameters
        except (TypeError, ValueError):
            params = {}
        known = dict(self._paths(), user=self.user, user_id=self.user)
        kwargs = {name: known[name] for name in params if name in known and known[name] is not None}
        result = hook(**kwargs)
        if inspect.isawaitable(result):
            self.loop.run_until_complete(_await(result))

    @property
    def shape_name(self) -> str:
        return self.tool.shape if isinstance(self.tool, FunctionTool) else "tool"

    @property
    def class_name(self) -> str:
        if isinstance(self.tool, FunctionTool):
            return self.tool.display
        t = type(self.tool)
        return f"{t.__module__}:{t.__qualname__}"

    def call(self, tool_input: Any) -> Any:
        """tool.call(input) as the runner makes it: sync tools directly, async ones awaited."""
        if self.is_async:
            return self.loop.run_until_complete(_call_async(self.tool, tool_input))
        result = self.tool.call(tool_input)
        if inspect.isawaitable(result):  # a sync-looking tool that returned a coroutine anyway
            result = self.loop.run_until_complete(_await(result))
        return result

    def reset(self) -> Optional[str]:
        """Empty the memories folder and the backend's own state; the folder itself stays.

        Returns why the store cannot be wiped, or None when it was: a "no" makes memspec start a
        new process per case rather than fail cases on an earlier case's memories. Started as one
        user of a shared store, the folder is every user's: only the backend's own state (its
        rebuild, its clear) is this user's to forget."""
        if self.user is None:
            wipe_folder_contents(self.memories)
        if isinstance(self.tool, FunctionTool):
            hook = self._reset_hook()
            if hook is not None:
                self._call_hook(hook)
                return None
            if self._keeps_state():
                # Short: memspec quotes 200 characters of it.
                why = (
                    f"{self.display} keeps files in its state folder and has no reset hook (handler.reset or "
                    "a module reset()), which no rebuild replaces"
                )
                log(f"reset: {why}")
                return why
            if self.factory is not None:
                self.tool = self._build()
            else:
                # A ready-made function: its module is executed again, so that state it keeps at
                # module level (a dict, a store built at import) starts afresh.
                obj, _ = load_target(self.target, fresh=True)
                self.tool = FunctionTool(obj, self.tool.shape)
                self.is_async = self._is_async()
            return None
        sdk = _sdk()
        if sdk.local_fs_classes and isinstance(self.tool, sdk.local_fs_classes):
            return None  # its state is the folder (its clear_all_memory would remove the folder itself)
        cleared = False
        clear = getattr(self.tool, "clear_all_memory", None)
        if callable(clear):
            try:
                result = clear()
                if inspect.isawaitable(result):
                    self.loop.run_until_complete(_await(result))
                cleared = True
            except NotImplementedError:  # the SDK base class's default
                pass
        if not cleared and self.factory is not None and self._keeps_state():
            why = (
                f"{self.display} keeps files in its state folder and has no clear_all_memory(), which no "
                "rebuild replaces"
            )
            log(f"reset: {why}")
            return why
        if not cleared and self.factory is not None:
            self.tool = self._build()  # fresh state for a backend that keeps it in memory
        elif not cleared:
            why = (
                f"{self.display} has no clear_all_memory() and is a ready-made object, so its store "
                "cannot be wiped; export a class or a factory, or implement clear_all_memory()"
            )
            log(f"reset: {why}")
            return why
        return None


async def _await(awaitable: Any) -> Any:
    return await awaitable


async def _call_async(tool: Any, tool_input: Any) -> Any:
    result = tool.call(tool_input)
    if inspect.isawaitable(result):
        result = await result
    return result


def wipe_folder_contents(folder: str) -> None:
    """Delete everything inside `folder` without following symlinks; create it if missing."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        return
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(f"{folder} is not a directory")
    with os.scandir(folder) as it:
        entries = list(it)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            # rmtree never follows symlinks below the top (and refuses a symlink at the top).
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)


# ---------------------------------------------------------------------------------------------
# Protocol
# ---------------------------------------------------------------------------------------------


def tool_reply(backend: Backend, req_id: Any, tool_input: Any) -> dict:
    sdk = _sdk()
    try:
        # Conversion sits inside the try, as in the runner: a result that is neither a string nor
        # a list (say, an int) fails in tool_result_content and is reported as that TypeError.
        result = backend.call(tool_input)
        if isinstance(result, HandlerOutcome):  # a handler's mapping or tool_result: its own is_error
            return {"id": req_id, "content": sdk.tool_result_content(result.content), "is_error": result.is_error}
        content = sdk.tool_result_content(result)
        return {"id": req_id, "content": content, "is_error": False}
    except BadHandlerResult as exc:
        log(f"{backend.display}: {exc}")
        return {"id": req_id, "error": _well_formed(f"{backend.display}: {exc}")}
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: B036 - the runner catches Exception; we also survive SystemExit & co.
        if not _is_tool_error(exc):
            # The runner's log.exception(...): a traceback for the developer, on stderr.
            log(f"error occurred while calling tool {backend.display}:\n" + _format_exc(exc))
        return {"id": req_id, "content": sdk.tool_error_content(exc), "is_error": True}


def control_reply(backend: Backend, req_id: Any, control: Any) -> dict:
    if control == "hello":
        return {
            "id": req_id,
            "ok": True,
            "protocol": PROTOCOL_VERSION,
            "backend": backend.class_name,
            "sdk": _sdk().version,
            "adapter": ADAPTER_NAME,
            "target": backend.target,
            "async": backend.is_async,
            "shape": backend.shape_name,
            "runner_helpers": _sdk().helpers_from,
            "language": f"python {sys.version.split()[0]}",
        }
    if control == "reset":
        try:
            why = backend.reset()
            if why is not None:
                return {"id": req_id, "ok": False, "error": _well_formed(why)}
            return {"id": req_id, "ok": True}
        except Exception as exc:
            log("reset failed:\n" + _format_exc(exc))
            return {"id": req_id, "ok": False, "error": _well_formed(f"reset failed: {exc!r}")}
    return {"id": req_id, "ok": False, "error": _well_formed(f"unknown control {control!r}")}


def handle_line(backend: Backend, line: str) -> Optional[dict]:
    if not line.strip():
        return None
    try:
        msg = json.loads(line)
    except ValueError as exc:
        return {"id": None, "error": f"request is not JSON: {exc}"}
    if not isinstance(msg, dict):
        return {"id": None, "error": "request is not a JSON object"}
    req_id = msg.get("id")
    if "control" in msg:
        return control_reply(backend, req_id, msg["control"])
    if "input" in msg:
        return tool_reply(backend, req_id, msg["input"])
    return {"id": req_id, "error": "request has neither `input` nor `control`"}


def _jsonable(obj: Any) -> Any:
    """json.dumps default=: content blocks returned as SDK models are sent as the SDK would send them."""
    for name in ("to_dict", "model_dump"):
        fn = getattr(obj, name, None)
        if callable(fn):
            return fn()
    if isinstance(obj, (tuple, set, frozenset)):
        return list(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def encode_reply(reply: dict) -> bytes:
    try:
        text = json.dumps(reply, ensure_ascii=False, default=_jsonable)
        return (text + "\n").encode("utf-8")  # fails on a lone surrogate outside sanitised content
    except (TypeError, ValueError, UnicodeEncodeError) as exc:
        # The real runner would fail when sending such a result; report it as a broken reply.
        log(f"reply for id {reply.get('id')!r} cannot be encoded: {exc!r}")
        safe = {"id": reply.get("id"), "error": _well_formed(f"backend returned content that cannot be sent: {exc!r}")}
        try:
            json.dumps(safe["id"])
        except (TypeError, ValueError):
            safe["id"] = None
        return (json.dumps(safe, ensure_ascii=True) + "\n").encode("ascii")


def _take_stdio() -> tuple[Any, Any]:
    """Keep private copies of fds 0/1 for the protocol; point the real ones at /dev/null / stderr,
    so a backend that prints (even from C code or a child process) cannot corrupt the stream."""
    proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
    proto_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto_in, proto_out


def _read_lines(stream: Any):
    """Lines from a raw binary stream, without read-ahead buffering surprises."""
    buf = b""
    while True:
        chunk = stream.read(65536)
        if not chunk:
            break
        buf += chunk
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line, buf = buf[:nl], buf[nl + 1 :]
            yield line
    if buf:
        yield buf


def _write_all(stream: Any, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = stream.write(view)
        view = view[n or 0 :]


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="memspec_adapter.py",
        description="Serve a Python memory-tool backend over memspec's backend protocol v1 (JSON Lines on stdio).",
        epilog="Example: memspec check --backend 'python3 adapters/python/memspec_adapter.py "
        "my_backend.py:MyMemoryTool --base {base}'",
    )
    p.add_argument(
        "target",
        metavar="TARGET",
        help="module:Attr | path/to/file.py[:Attr] | " + " | ".join(BUILTINS),
    )
    p.add_argument("--base", help="folder whose memories/ is /memories (env MEMSPEC_BASE)")
    p.add_argument("--memories", help="the folder /memories maps to (env MEMSPEC_MEMORIES)")
    p.add_argument(
        "--state",
        help="the backend's own folder, for its database or store file (env MEMSPEC_STATE): passed to a "
        "factory as its `state` (or `state_dir`) argument",
    )
    p.add_argument(
        "--user",
        help="serve this user of a store shared by many users: passed to the class or factory as its `user` "
        "(or `user_id`) argument (env MEMSPEC_USER; memspec check --per-user starts one process per user)",
    )
    p.add_argument(
        "--shape",
        choices=("auto",) + SHAPES,
        help="for a handler function: `input` (handle(tool_input)) or `tool_use` (handle(tool_use_block) -> "
        "tool_result); default `auto`, from its signature (env MEMSPEC_SHAPE)",
    )
    return p.parse_args(argv)


def resolve_shape(args: argparse.Namespace) -> Optional[str]:
    shape = args.shape or os.environ.get("MEMSPEC_SHAPE") or "auto"
    if shape not in ("auto",) + SHAPES:
        raise StartupError(f"MEMSPEC_SHAPE={shape!r}: expected auto, input or tool_use")
    return None if shape == "auto" else shape


def resolve_paths(args: argparse.Namespace) -> tuple[str, str]:
    base = args.base or os.environ.get("MEMSPEC_BASE") or None
    memories = args.memories or os.environ.get("MEMSPEC_MEMORIES") or None
    for value in (base, memories):
        if value and "{" in value and "}" in value:
            log(f"warning: path {value!r} still holds a placeholder; run through memspec or substitute it")
    if not base and not memories:
        raise StartupError("give --base (or --memories), or set MEMSPEC_BASE / MEMSPEC_MEMORIES")
    if base and not memories:
        memories = os.path.join(base, "memories")
    elif memories and not base:
        base = os.path.dirname(os.path.abspath(memories))
    return os.path.abspath(base), os.path.abspath(memories)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    proto_in, proto_out = _take_stdio()
    # A script's own folder is sys.path[0]; module targets are looked up from the working
    # directory instead, as `python -m` would.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path.insert(0, os.getcwd())
    try:
        base, memories = resolve_paths(args)
        shape = resolve_shape(args)
        if args.target in BUILTINS and os.path.normpath(memories) != os.path.join(base, "memories"):
            raise StartupError(f"{args.target} always uses <base>/memories; {memories} is not {base}/memories")
        # A handler function reads its folder where it likes; these name the one memspec gave.
        os.environ["MEMSPEC_BASE"], os.environ["MEMSPEC_MEMORIES"] = base, memories
        user = args.user if args.user is not None else os.environ.get("MEMSPEC_USER")
        state = args.state or os.environ.get("MEMSPEC_STATE") or None
        if state:
            state = os.path.abspath(state)
            os.environ["MEMSPEC_STATE"] = state
        backend = Backend(args.target, base, memories, shape, user, state)
    except StartupError as exc:
        log(f"cannot start: {exc}")
        return 2
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            return 130
        log("cannot start: loading the backend raised:\n" + _format_exc(exc))
        return 2

    sdk = _sdk()
    if shape and backend.shape_name == "tool":
        log(f"--shape {shape} ignored: {backend.display} is a tool, not a handler function")
    kind = "" if backend.shape_name == "tool" else f" handler of shape {backend.shape_name}"
    log(
        f"serving {backend.display} ({backend.class_name}, {'async' if backend.is_async else 'sync'}{kind}) on {memories}; "
        f"anthropic {sdk.version or 'not installed'}; runner helpers: {sdk.helpers_from}"
    )
    try:
        for raw in _read_lines(proto_in):
            try:
                reply = handle_line(backend, raw.decode("utf-8", errors="replace"))
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # a bug here must not take the session down
                log("internal error:\n" + _format_exc(exc))
                reply = {"id": None, "error": f"adapter internal error: {exc!r}"}
            if reply is not None:
                _write_all(proto_out, encode_reply(reply))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0  # the harness went away
    finally:
        try:
            backend.loop.close()
        except Exception:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
