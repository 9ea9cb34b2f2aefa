"""Adds entries the spec leaves out (hidden items, node_modules) to the reference's listings."""

import os

import _proxy


def with_extra_entries(memories, wanted):
    """A handler appending, to every folder listing, the entries up to two levels deep for
    which `wanted(name)` holds (and that the reference left out)."""

    def handle(reference, tool_input):
        answer = reference.call(tool_input)
        if answer["is_error"] or not answer["content"].startswith("Here're the files"):
            return answer
        path = tool_input["path"].rstrip("/") or "/memories"
        folder = _proxy.host_path(memories, path)
        extra = []
        for name in sorted(os.listdir(folder)):
            full = os.path.join(folder, name)
            if wanted(name):
                extra.append(entry(path + "/" + name, full))
                if os.path.isdir(full) and not os.path.islink(full):
                    for inner in sorted(os.listdir(full)):
                        extra.append(entry(path + "/" + name + "/" + inner, os.path.join(full, inner)))
            elif os.path.isdir(full) and not os.path.islink(full):
                for inner in sorted(os.listdir(full)):
                    if wanted(inner):
                        extra.append(entry(path + "/" + name + "/" + inner, os.path.join(full, inner)))
        for line in extra:
            answer["content"] += "\n" + line
        return answer

    return handle


def entry(shown, full):
    if os.path.isdir(full) and not os.path.islink(full):
        return "{}\t{}/".format(_proxy.human_size(tree_size(full)), shown)
    return "{}\t{}".format(_proxy.human_size(os.lstat(full).st_size), shown)


def tree_size(folder):
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            full = os.path.join(root, name)
            if os.path.isfile(full) and not os.path.islink(full):
                total += os.lstat(full).st_size
    return total
