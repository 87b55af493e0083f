"""A small writer for build.ninja: one method per ninja statement.

Escaping and line wrapping live here so configure.py never writes ninja
syntax by hand (the pattern of ninja's own misc/ninja_syntax.py).
"""

import textwrap


def escape_path(path):
    """Escape a path for a build line. '$' is left alone on purpose, so
    paths may use $root and $builddir; spaces and colons are escaped."""
    return path.replace(" ", "$ ").replace(":", "$:")


def escape(value):
    """Escape a variable value: only '$' is special there."""
    return value.replace("$", "$$")


class Writer:
    def __init__(self, out, width=78):
        self.out = out
        self.width = width

    def comment(self, text):
        for line in textwrap.wrap(text, self.width - 2):
            self.out.write("# " + line + "\n")

    def newline(self):
        self.out.write("\n")

    def variable(self, key, value, indent=0):
        if isinstance(value, (list, tuple)):
            value = " ".join(v for v in value if v)
        self._line("%s = %s" % (key, value), indent)

    def pool(self, name, depth):
        self._line("pool %s" % name)
        self.variable("depth", str(depth), indent=1)

    def rule(self, name, command, description=None, depfile=None,
             deps=None, generator=False, pool=None, restat=False):
        self._line("rule %s" % name)
        self.variable("command", command, indent=1)
        if description:
            self.variable("description", description, indent=1)
        if depfile:
            self.variable("depfile", depfile, indent=1)
        if deps:
            self.variable("deps", deps, indent=1)
        if generator:
            self.variable("generator", "1", indent=1)
        if pool:
            self.variable("pool", pool, indent=1)
        if restat:
            self.variable("restat", "1", indent=1)

    def build(self, outputs, rule, inputs=(), implicit=(), order_only=(),
              variables=None, pool=None):
        outputs = _as_list(outputs)
        parts = [escape_path(o) for o in outputs]
        text = "build %s: %s" % (" ".join(parts), rule)
        ins = [escape_path(i) for i in _as_list(inputs)]
        if ins:
            text += " " + " ".join(ins)
        imp = [escape_path(i) for i in _as_list(implicit)]
        if imp:
            text += " | " + " ".join(imp)
        order = [escape_path(i) for i in _as_list(order_only)]
        if order:
            text += " || " + " ".join(order)
        self._line(text)
        if pool:
            self.variable("pool", pool, indent=1)
        for key, value in (variables or {}).items():
            self.variable(key, value, indent=1)
        return outputs

    def default(self, paths):
        self._line("default %s" % " ".join(_as_list(paths)))

    def _line(self, text, indent=0):
        """Write one logical line, wrapped at spaces with '$' continuations."""
        lead = "  " * indent
        while len(lead) + len(text) > self.width:
            space = self._break_at(text, self.width - len(lead) - 2)
            if space < 0:
                break
            self.out.write(lead + text[:space] + " $\n")
            text = text[space + 1:]
            lead = "  " * (indent + 2)
        self.out.write(lead + text + "\n")

    @staticmethod
    def _break_at(text, limit):
        """The last unescaped space before limit, else the first after it."""
        def unescaped(i):
            n = 0
            while i - n - 1 >= 0 and text[i - n - 1] == "$":
                n += 1
            return n % 2 == 0

        i = text.rfind(" ", 0, limit)
        while i > 0 and not unescaped(i):
            i = text.rfind(" ", 0, i)
        if i > 0:
            return i
        i = text.find(" ", limit)
        while i >= 0 and not unescaped(i):
            i = text.find(" ", i + 1)
        return i


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value)
