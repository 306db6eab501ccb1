#!/usr/bin/env python3
"""Checks that every program perfhive's scripts and tests call is on this machine, and that
scripts/install-deps.sh is what put it there.

A suite that passes only because a developer once installed a tool by hand fails on a fresh
machine (wixl did: nothing installed it). This finds the programs the tree calls, without a list
to keep up to date:
  - in shell scripts, the command word of every simple command (after `sudo`, `exec`, `env`,
    `command -v` and the like), outside comments, quotes and here-documents;
  - in C++ and CMake files, absolute program paths ("/usr/bin/wine") and find_program() names.
Each must be on PATH (or at its absolute path). Each found must also come from a Debian package
that `scripts/install-deps.sh core windows` installs, or one those depend on, or one of Debian's
required or important packages, which every Debian 12 machine has. Run after install-deps.sh;
exits 1 listing each program that is missing or that came from elsewhere, with where it is used.

Usage: check-tools.py [--list]   (--list prints every program found and where)
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Words in command position that are the shell's own, not programs.
SHELL_WORDS = set("""
    if then else elif fi case esac for while until do done in function select time coproc
    break continue return exit export readonly local declare typeset unset shift set source
    . : true false echo printf read mapfile readarray cd pwd pushd popd test [ [[ ]] eval
    exec trap wait kill jobs fg bg disown ulimit umask type hash command builtin let shopt
    getopts alias unalias enable help logout caller compgen complete dirs history suspend times
    """.split())
# Words that run the command after them (with their own options skipped).
WRAPPERS = {"sudo", "exec", "env", "nice", "nohup", "command", "time", "xargs", "setsid"}
# What the tree builds and installs itself (the package test calls the installed CLI).
BUILT = {"perfhive", "perfhive-server", "perfhive-agent", "/usr/bin/perfhive"}
PROGRAM = re.compile(r"^[A-Za-z][A-Za-z0-9_.+-]*$|^/[A-Za-z0-9_./+-]+$")


def git_files(*patterns):
    out = subprocess.run(["git", "-C", ROOT, "ls-files", *patterns], check=True,
                         capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line]


def matching(text, i, open_="(", close=")"):
    """The index just past the bracket that closes the one at text[i]."""
    depth, quote = 0, None
    for j in range(i, len(text)):
        c = text[j]
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def shell_segments(text):
    """Yields the simple commands of a shell script as lists of words: a rough tokenizer that
    knows quotes, comments, here-documents, arrays, (( )), $( ) and the separators
    ; & | && || ( ) { }. A ")" that closes nothing ends a case pattern, which is not a command."""
    words, word, quote = [], "", None
    stack = []  # (quote, word) to return to when a $( opened inside double quotes closes
    depth = 0  # open ( and $( that a ) may close
    heredocs = []  # terminators of here-documents that start on the next line
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote == "'":
            quote = None if c == "'" else quote
            word += c
            i += 1
            continue
        if quote == '"':
            if c == "\\":
                word += text[i:i + 2]
                i += 2
                continue
            if text.startswith("$(", i) and not text.startswith("$((", i):
                stack.append(('"', word))
                if words:
                    yield words
                words, word, quote = [], "", None
                depth += 1
                i += 2
                continue
            quote = None if c == '"' else quote
            word += c
            i += 1
            continue
        if c == "\n":
            if word:
                words.append(word)
                word = ""
            if words:
                yield words
            words = []
            i += 1
            for end in heredocs:  # skip each here-document's body, terminator included
                m = re.compile(r"^[ \t]*" + re.escape(end) + r"[ \t]*$", re.M).search(text, i)
                i = m.end() + 1 if m else n
            heredocs = []
            continue
        if c in "'\"":
            quote = c
            word += c
            i += 1
            continue
        if c == "\\":
            if text.startswith("\\\n", i):  # a continued line
                i += 2
                continue
            word += text[i:i + 2]
            i += 2
            continue
        if c == "#" and not word:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        m = re.match(r"<<-?[ \t]*(['\"]?)([A-Za-z_]+)\1", text[i:i + 64])
        if m and not text.startswith("<<<", i):
            heredocs.append(m.group(2))
            i += m.end()
            continue
        if text.startswith("$((", i) or text.startswith("${", i):
            j = matching(text, i + 1, "(" if text[i + 1] == "(" else "{",
                         ")" if text[i + 1] == "(" else "}")
            word += text[i:j]
            i = j
            continue
        if text.startswith("((", i) and not word:
            i = matching(text, i)  # an arithmetic command runs no program
            continue
        if c == "(" and word.endswith("="):
            j = matching(text, i)  # an array: its elements are words, not commands
            word += text[i:j]
            i = j
            continue
        if c.isspace():
            if word:
                words.append(word)
                word = ""
            i += 1
            continue
        if text.startswith("$(", i) or c in ";&|(){}`":
            if word:
                words.append(word)
                word = ""
            if c == ")" and depth == 0:
                words = []  # a case pattern
                i += 1
                continue
            if words:
                yield words
            words = []
            if text.startswith("$(", i) or c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if stack:
                    quote, word = stack.pop()
            i += 2 if text.startswith("$(", i) else 1
            continue
        word += c
        i += 1
    if word:
        words.append(word)
    if words:
        yield words


def command_words(words, functions):
    """The programs a simple command runs: its command word, past assignments and wrappers."""
    i = 0
    while i < len(words):
        w = words[i]
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=", w) or re.match(r"^\d*[<>]", w):
            i += 1
            continue
        if w in ("!", "then", "do", "else", "elif", "if", "while", "until", "time"):
            i += 1
            continue
        if w in WRAPPERS or w == "$sudo":
            checked = w == "command"
            i += 1
            while i < len(words) and (words[i].startswith("-") or
                                      (w == "env" and "=" in words[i])):
                checked = checked or words[i] == "-v"
                i += 1
            if checked and w == "command":
                # command -v A B: checks A and B exist, the way scripts test for tools.
                return [x for x in words[i:] if PROGRAM.match(x)]
            continue
        if not PROGRAM.match(w) or w in SHELL_WORDS or w in functions:
            return []
        if w.endswith(")") or w.startswith("-"):
            return []
        return [w]
    return []


def shell_programs(text, functions):
    found = []
    for words in shell_segments(text):
        for program in command_words(words, functions):
            found.append(program)
        # for tool in A B C; do ... command -v "$tool": the list is of programs.
        if len(words) > 3 and words[0] == "for" and words[1] == "tool" and words[2] == "in":
            found += [w for w in words[3:] if PROGRAM.match(w) and not w.startswith("$")]
    return found


def main():
    uses = {}  # program -> set of files that call it

    def note(program, where):
        if program in BUILT:
            return
        uses.setdefault(program, set()).add(where)

    scripts = [f for f in git_files("*.sh", ".ci/run") if os.path.isfile(os.path.join(ROOT, f))]
    texts = {f: open(os.path.join(ROOT, f), encoding="utf-8").read() for f in scripts}
    functions = set()
    for text in texts.values():
        functions.update(re.findall(r"^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)", text, re.M))
    for f, text in texts.items():
        for program in shell_programs(text, functions):
            if program.startswith("./") or program.startswith("scripts/"):
                continue
            note(program, f)
    sources = git_files("*.cc", "*.h", "*.cmake", "CMakeLists.txt", "*.py")
    absolute = re.compile(r"[\"'](/(?:usr/)?(?:s?bin|libexec)/[A-Za-z0-9_./+-]+)[\"']")
    find_program = re.compile(r"find_program\(\s*\w+\s+(?:NAMES\s+)?([^)]*)\)", re.S)
    for f in sources:
        text = open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read()
        for path in absolute.findall(text):
            note(path, f)
        for args in find_program.findall(text):
            for name in args.split():
                if name.isupper() or name.startswith("$") or "/" in name:
                    break  # PATHS, REQUIRED, NO_DEFAULT_PATH... end the names
                note(name, f)

    if "--list" in sys.argv:
        for program in sorted(uses):
            print(f"{program}: {', '.join(sorted(uses[program]))}")
        return 0

    search = os.environ.get("PATH", "") + ":/usr/local/sbin:/usr/sbin:/sbin"
    located, missing = {}, []
    for program in sorted(uses):
        path = program if program.startswith("/") else shutil.which(program, path=search)
        if path and os.access(path, os.X_OK):
            located[program] = os.path.realpath(path)
        else:
            missing.append(program)

    allowed = install_deps_closure()
    owners = package_owners(located.values())
    foreign = []
    for program, path in located.items():
        owner = owners.get(path)
        if owner is None or owner not in allowed:
            foreign.append((program, owner or "no Debian package"))

    for program in missing:
        print(f"check-tools: {program} is missing; used by {', '.join(sorted(uses[program]))}",
              file=sys.stderr)
    for program, owner in foreign:
        print(f"check-tools: {program} comes from {owner}, which scripts/install-deps.sh does not "
              f"install; used by {', '.join(sorted(uses[program]))}", file=sys.stderr)
    if missing or foreign:
        print("check-tools: add the packages to scripts/install-deps.sh", file=sys.stderr)
        return 1
    print(f"check-tools: all {len(located)} programs the scripts and tests call are installed by "
          "scripts/install-deps.sh")
    return 0


def install_deps_closure():
    """The packages install-deps.sh installs, what they depend on, and Debian's base."""
    listed = subprocess.run([os.path.join(ROOT, "scripts/install-deps.sh"), "--list", "core",
                             "windows"], check=True, capture_output=True, text=True).stdout.split()
    base = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Priority} ${Essential}\n"],
                          check=True, capture_output=True, text=True).stdout
    allowed = set()
    for line in base.splitlines():
        name, priority, essential = (line.split() + ["", "", ""])[:3]
        if priority in ("required", "important") or essential == "yes":
            allowed.add(name)
    depends = subprocess.run(
        ["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
         "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *listed],
        check=True, capture_output=True, text=True).stdout
    for line in depends.splitlines():
        # "perfhive-dep" lines and "  Depends: <dep>" lines alike name a package.
        name = line.strip().split(":")[-1].strip().strip("<>")
        if name:
            allowed.add(name)
    return allowed


def package_owners(paths):
    """path -> the Debian package that installed it. dpkg may know a program under /bin or
    /sbin, which Debian 12 links to /usr/bin and /usr/sbin, so both names are asked."""
    names = {}
    for path in set(paths):
        names[path] = path
        if path.startswith("/usr/bin/") or path.startswith("/usr/sbin/"):
            names[path.replace("/usr/", "/", 1)] = path
    done = subprocess.run(["dpkg-query", "-S", *names], capture_output=True, text=True)
    owners = {}
    for line in done.stdout.splitlines():
        packages, _, name = line.partition(": ")
        if name in names:
            owners[names[name]] = packages.split(",")[0].split(":")[0].strip()
    return owners


if __name__ == "__main__":
    sys.exit(main())
