"""What a hand-written backend does once it has turned a memory path into a host path: plain
file operations with no further checks. The broken confinement backends send the inputs they
mishandle here, with the host path they (wrongly) computed."""

import os
import shutil

import _proxy


def run(tool_input, host):
    command = tool_input.get("command")
    path = tool_input.get("path", "")
    if command == "view":
        if os.path.isdir(host):
            lines = [
                "Here're the files and directories up to 2 levels deep in {}, excluding hidden items and node_modules:".format(path),
                "{}\t{}".format(_proxy.human_size(0), path),
            ]
            for name in sorted(os.listdir(host)):
                size = os.stat(os.path.join(host, name)).st_size
                lines.append("{}\t{}/{}".format(_proxy.human_size(size), path.rstrip("/"), name))
            return ok("\n".join(lines))
        if os.path.isfile(host):
            with open(host, encoding="utf-8", errors="replace", newline="") as f:
                return ok(_proxy.numbered(path, f.read()))
        return error("The path {} does not exist. Please provide a valid path.".format(path))
    if command == "create":
        if os.path.exists(host):
            return error("Error: File {} already exists".format(path))
        os.makedirs(os.path.dirname(host), exist_ok=True)
        with open(host, "w", encoding="utf-8", newline="") as f:
            f.write(tool_input.get("file_text", ""))
        return ok("File created successfully at: {}".format(path))
    if command == "delete":
        if os.path.isdir(host) and not os.path.islink(host):
            shutil.rmtree(host)
        elif os.path.lexists(host):
            os.remove(host)
        else:
            return error("Error: The path {} does not exist".format(path))
        return ok("Successfully deleted {}".format(path))
    if command == "str_replace":
        if not os.path.isfile(host):
            return error("Error: The path {} does not exist. Please provide a valid path.".format(path))
        with open(host, encoding="utf-8", newline="") as f:
            text = f.read()
        old, new = tool_input.get("old_str", ""), tool_input.get("new_str") or ""
        if text.count(old) != 1:
            return error("No replacement was performed, old_str `{}` did not appear verbatim in {}.".format(old, path))
        with open(host, "w", encoding="utf-8", newline="") as f:
            f.write(text.replace(old, new, 1))
        return ok("The memory file has been edited.")
    if command == "insert":
        if not os.path.isfile(host):
            return error("Error: The path {} does not exist".format(path))
        with open(host, encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")
        at = int(tool_input.get("insert_line", 0))
        lines[at:at] = tool_input.get("insert_text", "").split("\n")
        with open(host, "w", encoding="utf-8", newline="") as f:
            f.write("\n".join(lines))
        return ok("The file {} has been edited.".format(path))
    return None


def ok(text):
    return {"content": text, "is_error": False}


def error(text):
    return {"content": text, "is_error": True}
