"""The external programs the project's files run, found by reading them:
in Python, the argv[0] of a literal list handed to subprocess (or to a
helper named like it: run, Popen, check_output, ...), and the names given
to shutil.which or held in a TOOLS list; in shell scripts and the
documented commands (README.md's and docs/'s ```sh blocks), the first word
of each simple command. Not a test itself: test_packages.py uses it.

Each finding is (program, "FILE:LINE"). A command given by a path
($STAGE/sysbench, /usr/sbin/munged) counts as its last part, which is
how a staged program or a daemon is named in tools/configure_programs.py.
"""

import ast
import os
import re

# what runs a program given as its first argument
CALLERS = {"run", "Popen", "check_output", "check_call", "call", "execv",
           "execvp", "execvpe", "spawn", "_run"}
# names of shell keywords and builtins, which are no program
SHELL_WORDS = {
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do",
    "done", "case", "esac", "in", "function", "select", "time", "!", "{",
    "}", "[[", "]]", ".", ":", "[", "alias", "break", "builtin", "cd",
    "command", "continue", "declare", "echo", "eval", "exec", "exit",
    "export", "false", "getopts", "hash", "local", "printf", "pwd", "read",
    "readonly", "return", "set", "shift", "source", "test", "trap",
    "true", "type", "ulimit", "umask", "unset", "wait", "let", "kill",
    "mapfile", "shopt", "pushd", "popd", "jobs", "fg", "bg",
}
# commands that run the next word as the program (their own flags and,
# for timeout and nice, one value skipped)
PREFIXES = {"timeout": 1, "nice": 0, "env": 0, "exec": 0, "command": 0,
            "nohup": 0, "taskset": 1, "chrt": 1, "numactl": 0,
            "setsid": 0, "stdbuf": 0}
SHELLS = ("sh", "bash", "dash")


def python_findings(text, rel):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found = []
    functions = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)]

    def first_word(node):
        while isinstance(node, ast.BinOp):     # [PROGRAM, ...] + more
            node = node.left
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
            e = node.elts[0]
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                return e.value
        return None

    def strings(node):
        if isinstance(node, (ast.List, ast.Tuple)):
            return [e.value for e in node.elts
                    if isinstance(e, ast.Constant)
                    and isinstance(e.value, str)]
        return []

    def leading_text(node):
        """The start of a string built by + or %: its command word."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.BinOp):
            return leading_text(node.left)
        if isinstance(node, ast.JoinedStr) and node.values:
            return leading_text(node.values[0])
        return None

    for node in ast.walk(tree):
        where = "%s:%d" % (rel, getattr(node, "lineno", 0))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and re.match(r"^/(usr/)?s?bin/[\w.+-]+$", node.value):
            found.append((node.value.rsplit("/", 1)[-1], where))
        if isinstance(node, ast.Return) and node.value is not None:
            word = first_word(node.value)
            if word and re.match(r"^[\w.+-]+$", word) and \
                    any(isinstance(f, ast.FunctionDef)
                        and f.name.endswith(("_command", "_cmd", "argv"))
                        and node in ast.walk(f)
                        for f in functions):
                found.append((word, where))
        # build.ninja's commands: n.rule(NAME, COMMAND), "command": ...
        text = None
        if isinstance(node, ast.Call) and getattr(node.func, "attr",
                                                  "") == "rule":
            if len(node.args) > 1:
                text = leading_text(node.args[1])
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value == "command":
                    text = leading_text(v)
        if text:
            found += [(w, where) for w in command_words(text.split("\n")[0])]
        if isinstance(node, ast.Call):
            f = node.func
            name = (f.attr if isinstance(f, ast.Attribute)
                    else f.id if isinstance(f, ast.Name) else "")
            if name in CALLERS and node.args:
                word = first_word(node.args[0])
                if word:
                    found.append((word.rsplit("/", 1)[-1], where))
            if name == "which" and node.args:
                a = node.args[0]
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    found.append((a.value, where))
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id.endswith("TOOLS"):
                    found += [(s, where) for s in strings(node.value)]
    return found


def _uncomment(line):
    """The line without its comment: from a # that starts a word outside
    quotes (an apostrophe in a comment would open a quote)."""
    for m in re.finditer(r"(^|\s)#", line):
        before = line[:m.start()]
        if before.count("'") % 2 == 0 and before.count('"') % 2 == 0:
            return before
    return line


def _unquote(text):
    """The text with each quoted string replaced: by its text where it is
    one word (a command may be quoted: "$STAGE/sysbench"), else by Q and
    a continued line for each newline it held; ${...} and $((...)) by
    $V."""
    def sub(m):
        whole = m.group(0)
        inner = whole[1:-1]
        if whole[0] == '"' and re.match(r"^[\w$./-]+$", inner):
            return inner
        return "Q" + " \\\n" * whole.count("\n")
    text = "\n".join(_uncomment(line) for line in text.split("\n"))
    text = re.sub(r"\$\{[^}\n]*\}", "$V", text)
    text = re.sub(r"\$\(\(.*?\)\)", "$V", text)
    return re.sub(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"", sub, text)


def _logical_lines(text):
    """(line number, line) with continuations joined and quoted strings
    and here-documents left out."""
    lines = _unquote(text).split("\n")
    out, i, heredoc = [], 0, None
    while i < len(lines):
        n, line = i + 1, lines[i]
        i += 1
        if heredoc is not None:
            if line.strip() == heredoc:
                heredoc = None
            continue
        while line.endswith("\\") and i < len(lines):
            line = line[:-1] + " " + lines[i]
            i += 1
        m = re.search(r"<<-?\s*(\w+)", line)
        if m:
            heredoc = m.group(1)
        out.append((n, line))
    return out


def command_words(line):
    """The program of each simple command of one line of shell."""
    # a case pattern: `hash|lock-pi)`, `*)`
    line = re.sub(r"^\s*\(?[\w*.|\s-]+\)(?!\s*\{)(?!\))", "", line)
    words = []
    parts = re.split(r"(\|\||&&|[;|&`(){}]|\$\()", line)
    for i in range(0, len(parts), 2):
        seg = parts[i]
        if i and parts[i - 1] == ")":
            continue    # $(uname -r)/build: the rest of a word
        toks = seg.split()
        while toks:
            t = toks[0]
            if re.match(r"^\w+=", t) or t in ("!", "then", "do", "else",
                                              "time"):
                toks.pop(0)
                continue
            if t in PREFIXES:
                skip = PREFIXES[t]
                toks.pop(0)
                while toks and toks[0].startswith("-"):
                    opt = toks.pop(0)
                    if opt in ("-n", "-c", "-s", "-k") and toks:
                        toks.pop(0)
                del toks[:skip]
                continue
            break
        if not toks:
            continue
        t = toks[0]
        if (t in SHELL_WORDS or t.endswith(")") or t.startswith(("-", "<",
                                                                  ">", "Q"))
                or re.match(r"^\d", t) or "=" in t):
            continue
        if t.startswith(("case", "for", "while", "if", "until")):
            continue
        name = t.rstrip("/").rsplit("/", 1)[-1]
        if not re.match(r"^[A-Za-z_][\w.+-]*$", name):
            continue
        words.append(name)
    return words


def shell_findings(text, rel, first_line=1):
    funcs = set(re.findall(r"^\s*([\w-]+)\s*\(\)", text, re.M))
    found = []
    for n, line in _logical_lines(text):
        for w in command_words(line):
            if w not in funcs:
                found.append((w, "%s:%d" % (rel, n + first_line - 1)))
    return found


def doc_findings(text, rel):
    """The commands of a markdown file's ```sh (or bash, shell, console)
    blocks, a `$ ` prompt taken off."""
    found, block, start = [], None, 0
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^\s*```(\w*)", line)
        if m and block is None:
            if m.group(1) in ("sh", "bash", "shell", "console"):
                block, start = [], n + 1
            else:
                block = False
        elif m:
            if block:
                found += shell_findings("\n".join(block), rel, start)
            block = None
        elif block is not False and block is not None:
            line = re.sub(r"^\s*\$\s+", "", line)
            # a usage line's optional parts: [--version newest|X.Y]
            block.append(re.sub(r"\[-[^]]*\]", "", line))
    return found


def kind_of(path, rel):
    if rel.endswith(".py"):
        return "py"
    if rel.endswith(".sh"):
        return "sh"
    if rel.endswith(".md"):
        return "md"
    if "." in os.path.basename(rel):
        return None
    try:
        with open(path, "rb") as f:
            first = f.readline(200)
    except OSError:
        return None
    if first.startswith(b"#!") and b"python" in first:
        return "py"
    if first.startswith(b"#!") and re.search(rb"\b(ba)?sh\b", first):
        return "sh"
    return None


def scan(root, folders, files):
    """(program, where) of every file under folders and of files."""
    paths = [f for f in files if os.path.exists(os.path.join(root, f))]
    for folder in folders:
        for d, dirs, names in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(dirs)
            paths += [os.path.relpath(os.path.join(d, n), root)
                      for n in sorted(names)]
    found = []
    for rel in paths:
        path = os.path.join(root, rel)
        kind = kind_of(path, rel)
        if not kind:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        found += {"py": python_findings, "sh": shell_findings,
                  "md": doc_findings}[kind](text, rel)
    return found
