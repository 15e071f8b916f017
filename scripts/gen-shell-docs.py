#!/usr/bin/env python3
"""Writes the man page (assetforge.1) and the bash completion (assetforge.bash)
from the built executable's own --help output, so both come from the same
option tables as --help and cannot drift from them.

  gen-shell-docs.py ASSETFORGE OUTDIR
"""
import os
import re
import subprocess
import sys


def help_of(exe, *args):
    r = subprocess.run([exe, *args, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.stdout


def commands(top):
    """(name, summary, is_plugin) from `assetforge --help`."""
    out, plugin = [], False
    for line in top.splitlines():
        if line.startswith("plugin commands:"):
            plugin = True
        m = re.match(r"^  (\S+)\s+(.*)$", line)
        if m and not line.startswith("  --"):
            out.append((m.group(1), m.group(2), plugin))
    return out


def options(text):
    """The options in a command's help: the option column of Boost's tables
    ("  -j [ --jobs ] arg"), and for plugin commands the --flags of its usage lines."""
    found = []
    for line in text.splitlines():
        m = re.match(r"^  (-[a-zA-Z])? ?\[? ?(--[a-z][a-z0-9-]*)", line) or re.match(r"^  (--[a-z][a-z0-9-]*)()", line)
        toks = [t for t in (m.groups() if m else ()) if t]
        if not m:
            toks = re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", line) if line.startswith("  ") else []
        for tok in toks:
            if tok not in found:
                found.append(tok)
    return found


def roff(text):
    return text.replace("\\", "\\\\").replace("-", "\\-").replace("'", "\\(aq")


def man_page(exe, cmds, top):
    version = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    lines = [
        '.TH ASSETFORGE 1 "" "%s" "User Commands"' % roff(version),
        ".SH NAME",
        "assetforge \\- build tool for game mod texture trees: DDS/BC, XTF/VTF, .pages, pipelines",
        ".SH SYNOPSIS",
        ".B assetforge",
        "[limits] <command> [args]",
        ".SH DESCRIPTION",
        "Runs YAML pipelines that re-export and re-encode game textures, rebuilding only what changed, and "
        "converts, describes and compares texture files. Formats come from plugins.",
        ".SH COMMANDS",
    ]
    for name, summary, plugin in cmds:
        lines += [".SS %s" % roff(name), roff(summary)]
        lines += [".PP", ".nf"] + [roff(l) for l in help_of(exe, name).rstrip().splitlines()] + [".fi"]
    lines += [".SH LIMITS", ".nf"]
    lim = top[top.find("limits"):].split("\n\n")[0]
    lines += [roff(l) for l in lim.splitlines()] + [".fi"]
    lines += [".SH EXIT STATUS", "0 ok, 1 some input or action failed, 2 usage or configuration error.",
              ".SH ENVIRONMENT",
              ".TP\n.B ASSETFORGE_PLUGIN_PATH\nfolders searched for plugins first (':'-separated)",
              ".TP\n.B ASSETFORGE_REMOTE_CACHE\nthe remote cache URL when no --remote-cache is given",
              ".TP\n.B ASSETFORGE_REMOTE_CACHE_TOKEN\nbearer token for the remote cache",
              ".TP\n.B NO_COLOR\nno colour in build output",
              ".SH SEE ALSO",
              "Under the installation prefix:",
              ".TP\n.B share/doc/AssetForge/examples/plugin-sdk/README.md\n"
              "the plugin guide: writing a container, codec or stage plugin against the installed SDK",
              ".TP\n.B share/doc/AssetForge/docs/\nthe reference: pipelines (pipeline-reference.md), steps (steps.md), "
              "commands (cli.md), plugin isolation (plugin-isolation.md), memory, formats",
              ".TP\n.B share/assetforge/configs/\nthe bundled pipelines"]
    return "\n".join(lines) + "\n"


def completion(exe, cmds):
    names = " ".join(n for n, _, _ in cmds)
    cases = []
    for name, _, _ in cmds:
        opts = " ".join(o for o in options(help_of(exe, name)) if o not in ("-h",))
        cases.append("        %s) opts=\"%s\" ;;" % (name, opts))
    return """# bash completion for assetforge (generated from its --help by scripts/gen-shell-docs.py)
_assetforge() {
    local cur=${COMP_WORDS[COMP_CWORD]} cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --max-*) ((i++)) ;;
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "%s --help --version --max-dimension --max-surfaces --max-texture-bytes --max-items" -- "$cur"))
        return
    fi
    local opts=""
    case $cmd in
%s
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _assetforge assetforge
""" % (names, "\n".join(cases))


def main():
    exe, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    top = help_of(exe)
    cmds = commands(top)
    if not cmds:
        sys.exit("gen-shell-docs: no commands in `%s --help`" % exe)
    with open(os.path.join(outdir, "assetforge.1"), "w") as f:
        f.write(man_page(exe, cmds, top))
    with open(os.path.join(outdir, "assetforge.bash"), "w") as f:
        f.write(completion(exe, cmds))


if __name__ == "__main__":
    main()
